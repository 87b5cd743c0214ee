-- AlterTable
ALTER TABLE "end_users" ADD COLUMN     "erased_at" TIMESTAMPTZ(3);

-- An end user's erasure (src/server/services/end-user-data.ts) may rewrite, in the events that name
-- them, the labels, the address and user agent of their requests, and the person's name and address
-- inside `changes` and `data`; its transaction sets atrium.audit_erasure to 'on'. Nothing else of an
-- event may change, and every other UPDATE stays refused.
CREATE OR REPLACE FUNCTION "atrium_audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND (
    current_setting('atrium.audit_sweep', true) = 'on'
    OR NOT EXISTS (SELECT 1 FROM "organizations" WHERE "id" = OLD."organization_id")
  ) THEN
    RETURN OLD;
  END IF;
  IF TG_OP = 'UPDATE' AND current_setting('atrium.audit_erasure', true) = 'on'
    AND (NEW."id", NEW."organization_id", NEW."occurred_at", NEW."actor_type", NEW."actor_id", NEW."door",
         NEW."action", NEW."target_type", NEW."target_id", NEW."request_id", NEW."outcome", NEW."webhook_type")
      IS NOT DISTINCT FROM
        (OLD."id", OLD."organization_id", OLD."occurred_at", OLD."actor_type", OLD."actor_id", OLD."door",
         OLD."action", OLD."target_type", OLD."target_id", OLD."request_id", OLD."outcome", OLD."webhook_type")
  THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
