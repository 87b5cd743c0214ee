-- Directory sync failures of the last days, which each process's notification worker looks for
-- every few seconds in every organization (src/server/jobs/notification-emails.ts): without an
-- index of their own, each look read the whole audit log. Partial, so it holds only those events.
CREATE INDEX "audit_events_directory_sync_failed_idx" ON "audit_events" ("organization_id", "occurred_at") WHERE "action" = 'directory.sync_failed';
