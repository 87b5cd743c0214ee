-- Failed sources, which the console's bell reads for one organization and each process's
-- notification worker for every organization every few seconds (src/server/services/org/notifications.ts):
-- sources had no index by organization, so each look read the whole table (1.2 ms at 10,000
-- sources, growing with every organization's). Partial, so it holds only the failed ones.
CREATE INDEX "sources_failed_idx" ON "sources" ("organization_id", "updated_at") WHERE "status" = 'failed';
