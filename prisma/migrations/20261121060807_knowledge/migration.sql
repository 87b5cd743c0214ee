-- CreateTable
CREATE TABLE "sources" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "knowledgebase_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "searchable" BOOLEAN NOT NULL DEFAULT true,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "url" TEXT,
    "size_bytes" INTEGER NOT NULL DEFAULT 0,
    "error_message" TEXT,
    "created_via" TEXT NOT NULL,
    "content" BYTEA,
    "text" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sources_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "source_chunks" (
    "id" UUID NOT NULL,
    "source_id" UUID NOT NULL,
    "knowledgebase_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "text" TEXT NOT NULL,

    CONSTRAINT "source_chunks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "index_jobs" (
    "id" UUID NOT NULL,
    "source_id" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "claim_token" UUID,
    "lease_until" TIMESTAMPTZ(3),
    "run_after" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "index_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pages" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "knowledgebase_id" UUID NOT NULL,
    "parent_page_id" UUID,
    "title" TEXT NOT NULL,
    "template_key" TEXT NOT NULL DEFAULT '',
    "hook" TEXT NOT NULL DEFAULT '',
    "is_folder" BOOLEAN NOT NULL DEFAULT false,
    "markdown" TEXT NOT NULL DEFAULT '',
    "author_member_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "pages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "page_revisions" (
    "id" UUID NOT NULL,
    "page_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "markdown" TEXT NOT NULL,
    "author_member_id" UUID,
    "key_id" UUID,
    "via" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "page_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "page_links" (
    "page_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,

    CONSTRAINT "page_links_pkey" PRIMARY KEY ("page_id","kind","target_id")
);

-- CreateTable
CREATE TABLE "reviews" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "knowledgebase_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "page_id" UUID,
    "source_id" UUID,
    "revision_id" UUID,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "base_markdown" TEXT NOT NULL DEFAULT '',
    "proposed_markdown" TEXT NOT NULL DEFAULT '',
    "author_member_id" UUID,
    "key_id" UUID,
    "decided_at" TIMESTAMPTZ(3),
    "decided_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reviews_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "organization_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "response_status" INTEGER,
    "response_body" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("organization_id","key")
);

-- CreateIndex
CREATE INDEX "sources_knowledgebase_id_created_at_id_idx" ON "sources"("knowledgebase_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "source_chunks_knowledgebase_id_idx" ON "source_chunks"("knowledgebase_id");

-- CreateIndex
CREATE UNIQUE INDEX "source_chunks_source_id_position_key" ON "source_chunks"("source_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "index_jobs_source_id_key" ON "index_jobs"("source_id");

-- CreateIndex
CREATE INDEX "index_jobs_status_run_after_idx" ON "index_jobs"("status", "run_after");

-- CreateIndex
CREATE INDEX "pages_knowledgebase_id_created_at_id_idx" ON "pages"("knowledgebase_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "pages_parent_page_id_idx" ON "pages"("parent_page_id");

-- CreateIndex
CREATE INDEX "page_revisions_page_id_created_at_idx" ON "page_revisions"("page_id", "created_at");

-- CreateIndex
CREATE INDEX "page_links_target_id_idx" ON "page_links"("target_id");

-- CreateIndex
CREATE INDEX "reviews_organization_id_status_created_at_id_idx" ON "reviews"("organization_id", "status", "created_at", "id");

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");

-- AddForeignKey
ALTER TABLE "sources" ADD CONSTRAINT "sources_knowledgebase_id_fkey" FOREIGN KEY ("knowledgebase_id") REFERENCES "knowledgebases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "source_chunks" ADD CONSTRAINT "source_chunks_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "index_jobs" ADD CONSTRAINT "index_jobs_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pages" ADD CONSTRAINT "pages_knowledgebase_id_fkey" FOREIGN KEY ("knowledgebase_id") REFERENCES "knowledgebases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pages" ADD CONSTRAINT "pages_parent_page_id_fkey" FOREIGN KEY ("parent_page_id") REFERENCES "pages"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "page_revisions" ADD CONSTRAINT "page_revisions_page_id_fkey" FOREIGN KEY ("page_id") REFERENCES "pages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "page_links" ADD CONSTRAINT "page_links_page_id_fkey" FOREIGN KEY ("page_id") REFERENCES "pages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_knowledgebase_id_fkey" FOREIGN KEY ("knowledgebase_id") REFERENCES "knowledgebases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Full-text search (not expressible in Prisma): generated tsvector columns with GIN indexes.
ALTER TABLE "source_chunks" ADD COLUMN "tsv" tsvector GENERATED ALWAYS AS (to_tsvector('english', "text")) STORED;
CREATE INDEX "source_chunks_tsv_idx" ON "source_chunks" USING GIN ("tsv");
ALTER TABLE "pages" ADD COLUMN "tsv" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', coalesce("title", '')), 'A') || setweight(to_tsvector('english', coalesce("markdown", '')), 'B')
) STORED;
CREATE INDEX "pages_tsv_idx" ON "pages" USING GIN ("tsv");
