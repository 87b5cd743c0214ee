-- CreateIndex
CREATE INDEX "group_members_group_id_added_at_end_user_id_idx" ON "group_members"("group_id", "added_at", "end_user_id");
