-- AlterTable
ALTER TABLE "builder_items" ADD COLUMN     "test_cases" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "test_rubric" TEXT NOT NULL DEFAULT '';
