-- Hybrid search (issue 18): one vector per page or document chunk, from the organization's embedding model.

-- CreateTable
CREATE TABLE "embeddings" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "knowledgebase_id" UUID NOT NULL,
    "page_id" UUID,
    "chunk_id" UUID,
    "content_hash" TEXT NOT NULL,
    "model_key" TEXT NOT NULL,
    "vector" REAL[],
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "run_after" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_until" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "embeddings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "embeddings_page_id_key" ON "embeddings"("page_id");

-- CreateIndex
CREATE UNIQUE INDEX "embeddings_chunk_id_key" ON "embeddings"("chunk_id");

-- CreateIndex
CREATE INDEX "embeddings_knowledgebase_id_model_key_idx" ON "embeddings"("knowledgebase_id", "model_key");

-- CreateIndex
CREATE INDEX "embeddings_organization_id_idx" ON "embeddings"("organization_id");

-- AddForeignKey
ALTER TABLE "embeddings" ADD CONSTRAINT "embeddings_page_id_fkey" FOREIGN KEY ("page_id") REFERENCES "pages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "embeddings" ADD CONSTRAINT "embeddings_chunk_id_fkey" FOREIGN KEY ("chunk_id") REFERENCES "source_chunks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Exactly one target; one row per target whichever it is (the embedding worker's upsert key).
ALTER TABLE "embeddings" ADD CONSTRAINT "embeddings_one_target_check" CHECK (("page_id" IS NULL) <> ("chunk_id" IS NULL));
CREATE UNIQUE INDEX "embeddings_target_key" ON "embeddings" ((COALESCE("page_id", "chunk_id")));
