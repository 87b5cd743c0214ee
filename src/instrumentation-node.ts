// The Node.js half of src/instrumentation.ts: this process's indexing worker, unless our
// production server already started one.
import { getDb } from "@/server/db";
import { startEvalWorker } from "@/server/jobs/evaluations";
import { startIndexWorker } from "@/server/jobs/indexing";
import { startLostRunSweeper } from "@/server/jobs/lost-runs";
import { startApprovalWorker } from "@/server/jobs/approvals";
import { startNotificationEmailWorker } from "@/server/jobs/notification-emails";
import { startWebhookWorker } from "@/server/jobs/webhook-delivery";
import { logger } from "@/server/observability/log";

export function startIndexWorkerOnce(): void {
  if ((globalThis as { atriumIndexWorker?: unknown }).atriumIndexWorker) return;
  try {
    startIndexWorker(getDb());
    startWebhookWorker(getDb());
    startNotificationEmailWorker(getDb());
    startLostRunSweeper(getDb());
    startApprovalWorker(getDb());
    startEvalWorker(getDb());
  } catch (error) {
    logger().error({ err: error }, "The indexing worker did not start");
  }
}
