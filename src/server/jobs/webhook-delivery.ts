// Webhook deliveries: durable jobs in PostgreSQL (webhook_deliveries, queued by a trigger in the
// transaction of the change), claimed like index_jobs (indexing.ts): FOR UPDATE SKIP LOCKED with
// a claim token and a lease, so no two workers in any number of processes send one attempt, and
// a delivery whose worker died is claimed again when its lease runs out. Only the holder of the
// claim may write the outcome. Each attempt is signed per Standard Webhooks 1.0, checked by the
// SSRF guard (integration-urls.ts) and bounded by a 15 s timeout; failures are retried on the
// schedule of retryDelayMs(); 410 Gone, or 5 days of failures, turns the endpoint off. The same
// loop runs the audit log's daily retention sweep.
import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import type { Db } from "@/server/db";
import { checkIntegrationUrl, guardedFetch } from "@/server/integration-urls";
import { logger } from "@/server/observability/log";
import { inSpan } from "@/server/observability/tracing";
import { openSecret } from "@/server/secret-box";
import { sweepAuditEventsWhenDue } from "@/server/services/org/audit-log";
import { sweepConversationsWhenDue } from "@/server/services/org/retention";
import { refreshSamlMetadataWhenDue } from "@/server/services/identity/saml";
import { startPollingWorker, type PollingWorker } from "./polling-worker";

/** The pauses before each retry: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then the delivery fails. */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
export const ATTEMPT_TIMEOUT_MS = 15_000;
/** How a readable signing secret begins (a sealed one begins with the secret box's version). */
export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** An endpoint whose attempts have all failed for this long is turned off. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3_600_000;
const JITTER = 0.1;
const SWEEP_CHECK_MS = 60_000;
const MAX_ERROR_CHARS = 500;

/**
 * The pause after the `attempt`-th failed attempt (1-based) with up to ±10% jitter (`random` in
 * [0, 1)), or null when no retry is left.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number | null {
  const base = RETRY_SCHEDULE_MS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + JITTER * (2 * random() - 1)));
}

export interface DeliveryOptions {
  /** The worker's clock: deliveries due by then are claimed (tests move it forward). */
  now?: () => Date;
  leaseMs?: number;
  batch?: number;
  timeoutMs?: number;
  random?: () => number;
  /** Called after a delivery is claimed, before it is sent (tests use it to simulate a crash). */
  afterClaim?: (delivery: ClaimedDelivery) => Promise<void> | void;
}

export interface ClaimedDelivery {
  id: string;
  claimToken: string;
  attemptCount: number;
}

interface Attempt {
  at: string;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

async function claimDeliveries(db: Db, count: number, leaseMs: number, now: Date): Promise<ClaimedDelivery[]> {
  const token = randomUUID();
  return db.$queryRaw<ClaimedDelivery[]>`
    update webhook_deliveries d set claim_token = ${token}::uuid, lease_until = now() + (${leaseMs} * interval '1 millisecond')
    where d.id in (
      select id from webhook_deliveries
      where status = 'pending' and next_attempt_at <= ${now}::timestamptz and (claim_token is null or lease_until < now())
      order by next_attempt_at
      for update skip locked
      limit ${count}
    )
    returning d.id, d.claim_token as "claimToken", d.attempt_count as "attemptCount"`;
}

interface DeliveryContext {
  type: string;
  occurred_at: Date;
  data: unknown;
  endpoint_id: string;
  url: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
}

/** A stored signing secret, opened: sealed, or still readable when stored before sealing (sealWebhookSecrets() in services/org/secrets.ts). */
export function openWebhookSecret(stored: string): string {
  return stored.startsWith(WEBHOOK_SECRET_PREFIX) ? stored : openSecret(stored);
}

/** The signatures of every active secret, space-separated (the old one during the overlap). */
function signatures(context: DeliveryContext, id: string, timestamp: Date, body: string): string {
  const secrets = [context.secret];
  if (context.previous_secret && context.previous_secret_until && context.previous_secret_until > new Date())
    secrets.push(context.previous_secret);
  return secrets.map((secret) => new Webhook(openWebhookSecret(secret)).sign(id, timestamp, body)).join(" ");
}

/** What an attempt sent and what came back, for "Send test event" (the console shows both). */
export interface AttemptExchange {
  request: { url: string; headers: Record<string, string>; body: string };
  /** The first RESPONSE_BODY_CHARS of the endpoint's answer; null when it gave none. */
  responseBody: string | null;
}

/** How much of an endpoint's answer a test event keeps to show. */
export const RESPONSE_BODY_CHARS = 2000;

/** The answer's first `max` characters, without reading more of it than that. */
async function bodyStart(response: Response, max: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (text.length < max) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return text.slice(0, max);
}

/** One attempt: the endpoint's answer, or why there was none; with `keepExchange`, what was sent and answered. */
async function attempt(
  context: DeliveryContext,
  id: string,
  timeoutMs: number,
  keepExchange = false,
): Promise<Attempt & { exchange?: AttemptExchange }> {
  const started = Date.now();
  const timestamp = new Date();
  const body = JSON.stringify({
    type: context.type,
    timestamp: context.occurred_at.toISOString(),
    data: context.data ?? {},
  });
  const headers = {
    "content-type": "application/json",
    "user-agent": "Atrium-Webhooks/1.0",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
    "webhook-signature": signatures(context, id, timestamp, body),
  };
  const done = (responseStatus: number | null, error: string | null, responseBody: string | null = null) => ({
    at: timestamp.toISOString(),
    responseStatus,
    durationMs: Date.now() - started,
    error: error && error.slice(0, MAX_ERROR_CHARS),
    ...(keepExchange ? { exchange: { request: { url: context.url, headers, body }, responseBody } } : {}),
  });
  try {
    await checkIntegrationUrl(context.url);
    const response = await guardedFetch(context.url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    const answered = keepExchange ? await bodyStart(response, RESPONSE_BODY_CHARS) : null;
    if (!keepExchange) await response.body?.cancel();
    return done(response.status, response.ok ? null : `HTTP ${response.status}`, answered);
  } catch (error) {
    return done(null, attemptFailure(error, context.url, timeoutMs));
  }
}

/** What the codes of a failed connection mean, in the words a receiver's operator searches for. */
const CONNECTION_FAILURES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection closed while sending",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ENOTFOUND: "DNS lookup failed",
  EAI_AGAIN: "DNS lookup failed (temporary)",
};

/**
 * Why an attempt got no answer, from the error and its cause: "connection refused (ECONNREFUSED)
 * by host:port", "TLS error (CERT_HAS_EXPIRED) with host:port", "no answer within 15 s", or the
 * refusal of the address rules; never fetch's bare "fetch failed".
 */
export function attemptFailure(error: unknown, url: string, timeoutMs: number): string {
  if (error instanceof Error && error.name === "TimeoutError") return `no answer within ${timeoutMs / 1000} s`;
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  // The cause carries the socket's error code (as its code, or as its message: fetch-url.ts).
  const code = [cause?.code, cause?.message].find(
    (value): value is string => typeof value === "string" && /^[A-Z][A-Z0-9_]+$/.test(value),
  );
  if (!code) return error.message;
  const { hostname, port, protocol } = new URL(url);
  const where = `${hostname}:${port || (protocol === "https:" ? "443" : "80")}`;
  if (CONNECTION_FAILURES[code]) return `${CONNECTION_FAILURES[code]} (${code}) by ${where}`;
  if (/CERT|TLS|SSL/.test(code)) return `TLS error (${code}) with ${where}`;
  return `${error.message} (${code}) at ${where}`;
}

/**
 * Sends one claimed delivery and writes its outcome, if the claim is still ours. With `once` (a
 * test event) a failure is not retried; it answers the attempt with what was sent and answered.
 */
async function deliver(
  db: Db,
  claimed: ClaimedDelivery,
  options: DeliveryOptions & { once?: boolean },
): Promise<(Attempt & { exchange?: AttemptExchange }) | null> {
  const [context] = await db.$queryRaw<DeliveryContext[]>`
    select d.type, e.occurred_at, e.data, p.id as endpoint_id, p.url, p.enabled, p.secret, p.previous_secret, p.previous_secret_until
    from webhook_deliveries d
    join audit_events e on e.id = d.event_id
    join webhook_endpoints p on p.id = d.endpoint_id
    where d.id = ${claimed.id}::uuid`;
  if (!context || !context.enabled) {
    const reason = context ? "the endpoint is disabled" : "the event is no longer kept";
    await db.$executeRaw`update webhook_deliveries set status = 'failed', claim_token = null, next_attempt_at = null,
      attempts = attempts || ${JSON.stringify([{ at: new Date().toISOString(), responseStatus: null, durationMs: 0, error: reason }])}::jsonb
      where id = ${claimed.id}::uuid and claim_token = ${claimed.claimToken}::uuid`;
    return null;
  }
  const { exchange, ...result } = await attempt(
    context,
    claimed.id,
    options.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
    options.once,
  );
  const succeeded = result.responseStatus !== null && result.responseStatus >= 200 && result.responseStatus < 300;
  const gone = result.responseStatus === 410;
  const attempts = claimed.attemptCount + 1;
  const delay = succeeded || gone || options.once ? null : retryDelayMs(attempts, options.random);
  const status = succeeded ? "succeeded" : delay === null ? "failed" : "pending";
  const now = options.now?.() ?? new Date();
  const nextAttemptAt = delay === null ? null : new Date(now.getTime() + delay);
  await db.$transaction(async (tx) => {
    const owned = await tx.$executeRaw`
      update webhook_deliveries set status = ${status}, attempt_count = ${attempts}, next_attempt_at = ${nextAttemptAt}::timestamptz,
        claim_token = null, lease_until = null, attempts = attempts || ${JSON.stringify([result])}::jsonb
      where id = ${claimed.id}::uuid and claim_token = ${claimed.claimToken}::uuid`;
    if (owned !== 1) return;
    if (succeeded) {
      await tx.$executeRaw`update webhook_endpoints set failing_since = null where id = ${context.endpoint_id}::uuid and failing_since is not null`;
    } else if (gone) {
      await tx.$executeRaw`update webhook_endpoints set enabled = false, disabled_reason = 'The endpoint answered 410 Gone.', updated_at = now()
        where id = ${context.endpoint_id}::uuid`;
    } else {
      await tx.$executeRaw`
        update webhook_endpoints set failing_since = coalesce(failing_since, ${now}::timestamptz),
          enabled = enabled and coalesce(failing_since, ${now}::timestamptz) > ${now}::timestamptz - (${DISABLE_AFTER_FAILING_MS} * interval '1 millisecond'),
          disabled_reason = case when coalesce(failing_since, ${now}::timestamptz) > ${now}::timestamptz - (${DISABLE_AFTER_FAILING_MS} * interval '1 millisecond')
            then disabled_reason else 'Every delivery failed for 5 days.' end,
          updated_at = now()
        where id = ${context.endpoint_id}::uuid`;
    }
  });
  return { ...result, exchange };
}

/**
 * Sends one delivery now, in this request, through the same claim, signature, address check and
 * outcome as the worker's, without retries: "Send test event". Answers the attempt with what was
 * sent and what came back, or null when the delivery was not there to claim.
 */
export async function deliverNow(
  db: Db,
  deliveryId: string,
  options: Pick<DeliveryOptions, "timeoutMs"> = {},
): Promise<(Attempt & { exchange?: AttemptExchange }) | null> {
  const token = randomUUID();
  const [claimed] = await db.$queryRaw<ClaimedDelivery[]>`
    update webhook_deliveries set claim_token = ${token}::uuid, lease_until = now() + (${ATTEMPT_TIMEOUT_MS * 2} * interval '1 millisecond')
    where id = ${deliveryId}::uuid and status = 'pending' and claim_token is null
    returning id, claim_token as "claimToken", attempt_count as "attemptCount"`;
  if (!claimed) return null;
  return deliver(db, claimed, { ...options, once: true });
}

/** Claims the deliveries due and sends them; returns how many were claimed. */
export async function runWebhookDeliveriesOnce(db: Db, options: DeliveryOptions = {}): Promise<number> {
  const claimed = await claimDeliveries(
    db,
    options.batch ?? 10,
    options.leaseMs ?? 60_000,
    options.now?.() ?? new Date(),
  );
  await Promise.all(
    claimed.map(async (delivery) => {
      await options.afterClaim?.(delivery);
      await inSpan("job webhook_delivery", { "atrium.webhook.delivery.id": delivery.id }, () =>
        deliver(db, delivery, options),
      );
    }),
  );
  return claimed.length;
}

export type WebhookWorker = PollingWorker;

/** The loop each server process runs: due deliveries every pollMs, backing off while the database is away. */
export function startWebhookWorker(
  db: Db,
  options: DeliveryOptions & { pollMs?: number; maxBackoffMs?: number } = {},
): WebhookWorker {
  let nextSweepCheck = 0;
  const polling = {
    name: "Webhook worker",
    pollMs: options.pollMs ?? 1000,
    maxBackoffMs: options.maxBackoffMs ?? 30_000,
  };
  return startPollingWorker(polling, async () => {
    // The retention sweeps and the SAML metadata refresh ride on this loop: asked at most once a
    // minute here, each run once a day across every process (the *WhenDue functions).
    if (Date.now() >= nextSweepCheck) {
      nextSweepCheck = Date.now() + SWEEP_CHECK_MS;
      const swept = await sweepAuditEventsWhenDue(db, options.now?.());
      if (swept) logger().info({ event: "audit_sweep", deleted: swept }, "Audit events past their retention deleted");
      const conversations = await sweepConversationsWhenDue(db, options.now?.());
      if (conversations?.conversations)
        logger().info(
          { event: "conversation_retention_sweep", ...conversations },
          "Conversations past their organization's retention deleted",
        );
      const metadata = await refreshSamlMetadataWhenDue(db, options.now?.());
      if (metadata) logger().info({ event: "saml_metadata_refresh", ...metadata }, "SAML metadata by URL read again");
    }
    return (await runWebhookDeliveriesOnce(db, options)) > 0;
  });
}
