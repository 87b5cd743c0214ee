-- A process also keeps an app as published (src/server/runtime/load.ts): its live version, which
-- pinned items remain, its agents' flows at their live versions, and the organization's model
-- prices. The epoch now moves on when any of those changes: an item made live at another version
-- (publish, deploy, rollback) or deleted, and a price set, changed or removed. A draft's save
-- changes none of them and keeps what the processes hold.
CREATE CONSTRAINT TRIGGER "builder_items_lookup_epoch" AFTER UPDATE ON "builder_items" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD."production_version_id" IS DISTINCT FROM NEW."production_version_id"
    OR OLD."organization_id" IS DISTINCT FROM NEW."organization_id" OR OLD."kind" IS DISTINCT FROM NEW."kind")
  EXECUTE FUNCTION "bump_lookup_epoch"();
CREATE CONSTRAINT TRIGGER "builder_items_deleted_lookup_epoch" AFTER DELETE ON "builder_items" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "bump_lookup_epoch"();
CREATE CONSTRAINT TRIGGER "model_prices_lookup_epoch" AFTER INSERT OR UPDATE OR DELETE ON "model_prices"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_lookup_epoch"();
