-- CreateTable
CREATE TABLE "run_refusals" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "code" TEXT NOT NULL,
    "app_id" UUID,
    "end_user_id" UUID,
    "portal_id" UUID,
    "plan_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_refusals_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "run_refusals_organization_id_created_at_id_idx" ON "run_refusals"("organization_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "run_refusals_organization_id_app_id_created_at_id_idx" ON "run_refusals"("organization_id", "app_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "run_refusals_organization_id_end_user_id_created_at_id_idx" ON "run_refusals"("organization_id", "end_user_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "run_refusals_organization_id_portal_id_created_at_id_idx" ON "run_refusals"("organization_id", "portal_id", "created_at", "id");
