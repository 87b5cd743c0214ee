-- CreateIndex
CREATE INDEX "subscriptions_tier_plan_id_end_user_id_idx" ON "subscriptions"("tier_plan_id", "end_user_id");
