-- CreateTable
CREATE TABLE "run_leases" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "charge" JSONB NOT NULL,
    "execution" JSONB NOT NULL,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_leases_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "run_leases_heartbeat_at_idx" ON "run_leases"("heartbeat_at");
