-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "usage" JSONB;

-- CreateTable
CREATE TABLE "usage_models" (
    "organization_id" UUID NOT NULL,
    "key_id" UUID NOT NULL,
    "model_id" TEXT NOT NULL,

    CONSTRAINT "usage_models_pkey" PRIMARY KEY ("organization_id","key_id")
);

-- CreateTable
CREATE TABLE "model_prices" (
    "organization_id" UUID NOT NULL,
    "model_id" TEXT NOT NULL,
    "input_credits_per_million" INTEGER NOT NULL,
    "output_credits_per_million" INTEGER NOT NULL,
    "minimum_credits" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "model_prices_pkey" PRIMARY KEY ("organization_id","model_id")
);

-- AddForeignKey
ALTER TABLE "model_prices" ADD CONSTRAINT "model_prices_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
