-- AlterTable
ALTER TABLE "conversations" ADD COLUMN     "hidden_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "conversation_messages" ADD COLUMN     "citations" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "superseded_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "feedback_at" TIMESTAMPTZ(3),
ADD COLUMN     "feedback_rating" TEXT,
ADD COLUMN     "feedback_reason" TEXT;
