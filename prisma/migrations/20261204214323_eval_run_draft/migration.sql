-- AlterTable
ALTER TABLE "eval_runs" ADD COLUMN     "draft" JSONB;
