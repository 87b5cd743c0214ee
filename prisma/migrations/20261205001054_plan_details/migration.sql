-- AlterTable
ALTER TABLE "tier_plans" ADD COLUMN     "description" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "features" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "price_amount" INTEGER,
ADD COLUMN     "price_currency" TEXT NOT NULL DEFAULT 'USD',
ADD COLUMN     "price_interval" TEXT NOT NULL DEFAULT 'month';
