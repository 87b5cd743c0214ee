-- Audit log and webhooks (issue 29): one events table written beside every change, the webhook
-- endpoints of each organization, and their deliveries (a durable job queue).
-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "audit_retention_days" INTEGER NOT NULL DEFAULT 365;

-- CreateTable
CREATE TABLE "audit_events" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_type" TEXT NOT NULL,
    "actor_id" TEXT,
    "actor_label" TEXT NOT NULL,
    "door" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT,
    "target_label" TEXT NOT NULL DEFAULT '',
    "changes" JSONB NOT NULL DEFAULT '{}',
    "request_id" TEXT,
    "ip_address" TEXT,
    "user_agent" TEXT,
    "outcome" TEXT NOT NULL DEFAULT 'success',
    "webhook_type" TEXT,
    "data" JSONB,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "event_types" TEXT[],
    "description" TEXT NOT NULL DEFAULT '',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" TEXT,
    "secret" TEXT NOT NULL,
    "previous_secret" TEXT,
    "previous_secret_until" TIMESTAMPTZ(3),
    "failing_since" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" JSONB NOT NULL DEFAULT '[]',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) DEFAULT CURRENT_TIMESTAMP,
    "claim_token" UUID,
    "lease_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_events_organization_id_occurred_at_id_idx" ON "audit_events"("organization_id", "occurred_at", "id");

-- CreateIndex
CREATE INDEX "audit_events_organization_id_target_type_target_id_occurred_idx" ON "audit_events"("organization_id", "target_type", "target_id", "occurred_at");

-- CreateIndex
CREATE INDEX "webhook_endpoints_organization_id_created_at_id_idx" ON "webhook_endpoints"("organization_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_id_idx" ON "webhook_deliveries"("endpoint_id", "created_at", "id");

-- AddForeignKey
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The audit log is append-only (issue 29): UPDATE and DELETE are refused, except in the retention
-- sweep, whose transaction sets atrium.audit_sweep to 'on' (src/server/services/events.ts), and
-- except when the organization itself is gone (its events go with it by cascade).
CREATE FUNCTION "atrium_audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND (
    current_setting('atrium.audit_sweep', true) = 'on'
    OR NOT EXISTS (SELECT 1 FROM "organizations" WHERE "id" = OLD."organization_id")
  ) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER "audit_events_append_only" BEFORE UPDATE OR DELETE ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "atrium_audit_events_append_only"();
CREATE TRIGGER "audit_events_no_truncate" BEFORE TRUNCATE ON "audit_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "atrium_audit_events_append_only"();

-- An event that announces a webhook type queues one delivery per enabled endpoint listening for
-- it, in the inserting transaction (a transactional outbox): a rolled-back change sends nothing.
CREATE FUNCTION "atrium_queue_webhook_deliveries"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "webhook_deliveries" ("id", "organization_id", "endpoint_id", "event_id", "type", "next_attempt_at", "created_at")
  SELECT gen_random_uuid(), NEW."organization_id", e."id", NEW."id", NEW."webhook_type", now(), now()
  FROM "webhook_endpoints" e
  WHERE e."organization_id" = NEW."organization_id" AND e."enabled"
    AND (NEW."webhook_type" = ANY (e."event_types") OR '*' = ANY (e."event_types"));
  RETURN NULL;
END $$;
CREATE TRIGGER "audit_events_queue_webhooks" AFTER INSERT ON "audit_events"
  FOR EACH ROW WHEN (NEW."webhook_type" IS NOT NULL) EXECUTE FUNCTION "atrium_queue_webhook_deliveries"();
