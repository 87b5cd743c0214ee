-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "conversation_retention_days" INTEGER;
