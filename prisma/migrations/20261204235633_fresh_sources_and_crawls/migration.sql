-- AlterTable
ALTER TABLE "sources" ADD COLUMN     "checked_at" TIMESTAMPTZ(3),
ADD COLUMN     "crawl_id" UUID,
ADD COLUMN     "etag" TEXT,
ADD COLUMN     "last_modified" TEXT,
ADD COLUMN     "refresh" TEXT,
ADD COLUMN     "refresh_claim" UUID,
ADD COLUMN     "refresh_due_at" TIMESTAMPTZ(3),
ADD COLUMN     "refresh_error" TEXT;

-- AlterTable
ALTER TABLE "index_jobs" ADD COLUMN     "chunks_total" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "chunks_written" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "source_refreshes" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "source_id" UUID NOT NULL,
    "outcome" TEXT NOT NULL,
    "summary" TEXT NOT NULL DEFAULT '',
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "source_refreshes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "crawls" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "knowledgebase_id" UUID NOT NULL,
    "start_url" TEXT NOT NULL,
    "max_pages" INTEGER NOT NULL,
    "max_depth" INTEGER NOT NULL,
    "refresh" TEXT,
    "status" TEXT NOT NULL DEFAULT 'running',
    "robots_txt" TEXT,
    "created_via" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "crawls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "crawl_pages" (
    "id" UUID NOT NULL,
    "crawl_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "depth" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "claim_token" UUID,
    "lease_until" TIMESTAMPTZ(3),
    "source_id" UUID,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crawl_pages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "source_refreshes_source_id_at_idx" ON "source_refreshes"("source_id", "at");

-- CreateIndex
CREATE INDEX "crawls_knowledgebase_id_created_at_idx" ON "crawls"("knowledgebase_id", "created_at");

-- CreateIndex
CREATE INDEX "crawl_pages_status_lease_until_idx" ON "crawl_pages"("status", "lease_until");

-- CreateIndex
CREATE UNIQUE INDEX "crawl_pages_crawl_id_url_key" ON "crawl_pages"("crawl_id", "url");

-- CreateIndex
CREATE INDEX "sources_refresh_due_at_idx" ON "sources"("refresh_due_at");

-- CreateIndex
CREATE INDEX "sources_crawl_id_idx" ON "sources"("crawl_id");

-- AddForeignKey
ALTER TABLE "sources" ADD CONSTRAINT "sources_crawl_id_fkey" FOREIGN KEY ("crawl_id") REFERENCES "crawls"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "source_refreshes" ADD CONSTRAINT "source_refreshes_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "crawls" ADD CONSTRAINT "crawls_knowledgebase_id_fkey" FOREIGN KEY ("knowledgebase_id") REFERENCES "knowledgebases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "crawl_pages" ADD CONSTRAINT "crawl_pages_crawl_id_fkey" FOREIGN KEY ("crawl_id") REFERENCES "crawls"("id") ON DELETE CASCADE ON UPDATE CASCADE;
