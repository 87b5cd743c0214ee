-- AlterTable
ALTER TABLE "end_users" ADD COLUMN     "bonus_seen_at" TIMESTAMPTZ(3);
