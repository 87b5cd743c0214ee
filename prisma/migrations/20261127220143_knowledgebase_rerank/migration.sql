-- AlterTable
ALTER TABLE "knowledgebases" ADD COLUMN     "rerank" BOOLEAN NOT NULL DEFAULT false;

-- Whether a search of this knowledgebase asks the organization's chat model to reorder its best
-- results (src/server/services/retrieval.ts, rerankHits); off by default.
