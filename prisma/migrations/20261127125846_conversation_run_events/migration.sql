-- Resumable conversation streams (issue 26): a streamed run and its events, kept 24 hours so a
-- client that lost its connection resumes; swept with the idempotency keys (services/idempotency.ts).
-- CreateTable
CREATE TABLE "conversation_runs" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "conversation_id" UUID NOT NULL,
    "door" TEXT NOT NULL,
    "end_user_id" UUID,
    "status" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "conversation_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "conversation_run_events" (
    "run_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "event" TEXT NOT NULL,
    "data" TEXT NOT NULL,

    CONSTRAINT "conversation_run_events_pkey" PRIMARY KEY ("run_id","seq")
);

-- CreateIndex
CREATE INDEX "conversation_runs_created_at_idx" ON "conversation_runs"("created_at");

-- AddForeignKey
ALTER TABLE "conversation_run_events" ADD CONSTRAINT "conversation_run_events_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "conversation_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
