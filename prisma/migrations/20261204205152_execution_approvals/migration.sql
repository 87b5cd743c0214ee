-- CreateTable
CREATE TABLE "execution_approvals" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "app_id" UUID NOT NULL,
    "flow_id" UUID NOT NULL,
    "node_id" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_by" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "comment" TEXT,
    "state" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "execution_approvals_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "execution_approvals_organization_id_status_created_at_idx" ON "execution_approvals"("organization_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "execution_approvals_status_expires_at_idx" ON "execution_approvals"("status", "expires_at");
