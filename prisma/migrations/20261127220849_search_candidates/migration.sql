-- DropIndex
DROP INDEX "source_chunks_knowledgebase_id_idx";

-- CreateIndex
CREATE INDEX "source_chunks_knowledgebase_id_id_idx" ON "source_chunks"("knowledgebase_id", "id");

-- The opening chunks' tsvectors (not expressible in Prisma): a search of a large knowledgebase
-- takes the openings holding every term of the question first (services/retrieval.ts).
CREATE INDEX "source_chunks_opening_tsv_idx" ON "source_chunks" USING GIN ("tsv") WHERE "position" = 0;
