-- AlterTable
ALTER TABLE "portals" ADD COLUMN     "default_language" TEXT NOT NULL DEFAULT 'en';
