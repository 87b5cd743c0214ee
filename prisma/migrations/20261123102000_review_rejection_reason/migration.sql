-- AlterTable
ALTER TABLE "reviews" ADD COLUMN     "rejection_reason" TEXT;
