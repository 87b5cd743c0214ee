-- CreateIndex
CREATE INDEX "executions_organization_id_item_id_created_at_id_idx" ON "executions"("organization_id", "item_id", "created_at", "id");
