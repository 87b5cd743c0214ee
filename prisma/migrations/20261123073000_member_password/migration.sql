-- AlterTable
ALTER TABLE "members" ADD COLUMN     "password_hash" TEXT;
