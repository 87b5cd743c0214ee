-- AlterTable
ALTER TABLE "outbox_messages" ADD COLUMN     "readable_with" TEXT NOT NULL DEFAULT 'settings';

-- Links already kept cannot be told apart by what they grant: only owners read them from now on.
UPDATE "outbox_messages" SET "readable_with" = 'owners' WHERE "text" LIKE '%/invite/%';
