-- One grant per (user or group, target, effect, portal), a missing portal counting as one value.
-- Written with COALESCE rather than NULLS NOT DISTINCT so that PostgreSQL 14 accepts it;
-- databases that applied the original provisioning migration drop its NULLS NOT DISTINCT indexes here.
DROP INDEX IF EXISTS "grants_end_user_unique";
DROP INDEX IF EXISTS "grants_group_unique";
CREATE UNIQUE INDEX "grants_end_user_unique" ON "grants"("end_user_id", "target_kind", "target_id", "effect", COALESCE("deployment_id", '00000000-0000-0000-0000-000000000000'::uuid)) WHERE "end_user_id" IS NOT NULL;
CREATE UNIQUE INDEX "grants_group_unique" ON "grants"("group_id", "target_kind", "target_id", "effect", COALESCE("deployment_id", '00000000-0000-0000-0000-000000000000'::uuid)) WHERE "group_id" IS NOT NULL;
