-- AlterTable
ALTER TABLE "tier_plans" ADD COLUMN     "allowed_models" JSONB;
