-- AlterTable
ALTER TABLE "portals" ADD COLUMN     "embed_allowed_origins" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "embed_enabled" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "embed_previous_secret" TEXT,
ADD COLUMN     "embed_previous_secret_until" TIMESTAMPTZ(3),
ADD COLUMN     "embed_secret" TEXT,
ADD COLUMN     "provision_plan_id" UUID;
