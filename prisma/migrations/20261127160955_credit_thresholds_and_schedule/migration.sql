-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "credits_reference" INTEGER NOT NULL DEFAULT 1000;

-- CreateTable
CREATE TABLE "scheduled_tasks" (
    "name" TEXT NOT NULL,
    "next_run_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "scheduled_tasks_pkey" PRIMARY KEY ("name")
);

-- An existing organization's reference is its balance today (at least 1).
UPDATE "organizations" SET "credits_reference" = GREATEST("credits", 1);
