-- AlterTable
ALTER TABLE "knowledgebases" ADD COLUMN     "search_mode" TEXT NOT NULL DEFAULT 'auto';

-- The path a knowledgebase's search takes (src/server/services/retrieval.ts): "auto" fuses the
-- lexical ranking with the embedding model's when there is one, "lexical" never embeds the question.
ALTER TABLE "knowledgebases" ADD CONSTRAINT "knowledgebases_search_mode_check" CHECK ("search_mode" IN ('auto', 'lexical'));
