// Idempotency-Key: the first request with a key runs; a retry with the same key and body gets
// the first response again (status and body); another body, or a retry while the first still
// runs, is a conflict. Records live in PostgreSQL, per organization, for 24 hours, so every
// server process honours them. The process running a first request renews its key's heartbeat,
// as it renews a run's lease (runtime/run-leases.ts): a running key nobody renewed for
// RUN_LOST_AFTER_MS died with its process, and is free again.
import { createHash } from "node:crypto";
import { env } from "@/env";
import { onCloseDb, type Db } from "@/server/db";
import { logger } from "@/server/observability/log";
import { AppError } from "@/server/errors";

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const TTL_HOURS = 24;

/** The keys of first requests this process runs, renewed together. */
interface HeldKeys {
  keys: Map<string, { organizationId: string; key: string }>;
  timer: NodeJS.Timeout | null;
}

const heldBy = new WeakMap<Db, HeldKeys>();

function heldKeysFor(db: Db): HeldKeys {
  let held = heldBy.get(db);
  if (!held) {
    const created: HeldKeys = { keys: new Map(), timer: null };
    heldBy.set(db, created);
    onCloseDb(db, async () => {
      if (created.timer) clearInterval(created.timer);
      created.timer = null;
    });
    held = created;
  }
  return held;
}

async function renewKeys(db: Db, held: HeldKeys): Promise<void> {
  if (held.keys.size === 0) return;
  const keys = [...held.keys.values()];
  try {
    await db.pool.query(
      `update idempotency_keys set heartbeat_at = now()
       where state = 'running' and (organization_id, key) in (select * from unnest($1::uuid[], $2::text[]))`,
      [keys.map((held) => held.organizationId), keys.map((held) => held.key)],
    );
  } catch (error) {
    logger().warn({ reason: (error as Error).message }, "Could not renew this process's Idempotency-Keys; retrying");
  }
}

function holdKey(db: Db, organizationId: string, key: string): void {
  const held = heldKeysFor(db);
  held.keys.set(`${organizationId}:${key}`, { organizationId, key });
  if (!held.timer) {
    held.timer = setInterval(() => void renewKeys(db, held), Math.max(250, Math.floor(env().RUN_LOST_AFTER_MS / 4)));
    held.timer.unref();
  }
}

function dropKey(db: Db, organizationId: string, key: string): void {
  const held = heldKeysFor(db);
  held.keys.delete(`${organizationId}:${key}`);
  if (held.keys.size === 0 && held.timer) {
    clearInterval(held.timer);
    held.timer = null;
  }
}

export interface StoredResponse {
  status: number;
  body: unknown;
}

export function hashRequest(parts: (string | Buffer)[]): string {
  const hash = createHash("sha256");
  for (const part of parts) {
    hash.update(String(Buffer.byteLength(part)));
    hash.update(":");
    hash.update(part);
  }
  return hash.digest("hex");
}

export function checkIdempotencyKey(key: string): string {
  if (!KEY_PATTERN.test(key)) {
    throw new AppError(
      "invalid_request",
      "Invalid request: Idempotency-Key must be 1 to 255 printable ASCII characters.",
      {
        problems: [{ path: "Idempotency-Key", message: "1..255 printable ASCII characters" }],
      },
    );
  }
  return key;
}

/**
 * Takes the key for a first request: null when this request is the first and should run (then
 * `finishIdempotencyKey` or `releaseIdempotencyKey`), or the remembered answer to replay.
 */
export async function claimIdempotencyKey(
  db: Db,
  organizationId: string,
  key: string,
  requestHash: string,
): Promise<StoredResponse | null> {
  checkIdempotencyKey(key);
  for (let attempt = 0; attempt < 3; attempt++) {
    // Named statements on the pool: every keyed write sends these two, and a Prisma query costs
    // several times the CPU of one sent to the pool (src/server/db.ts).
    const { rowCount } = await db.pool.query({
      name: "atrium_idempotency_claim",
      text: `insert into idempotency_keys (organization_id, key, request_hash, state, created_at)
        values ($1::uuid, $2, $3, 'running', now()) on conflict (organization_id, key) do nothing`,
      values: [organizationId, key, requestHash],
    });
    if (rowCount === 1) {
      holdKey(db, organizationId, key);
      return null;
    }
    const existing = await db.idempotencyKey.findUnique({ where: { organizationId_key: { organizationId, key } } });
    if (!existing) continue; // deleted in between: try to take it again
    const expired = Date.now() - existing.createdAt.getTime() > TTL_HOURS * 3_600_000;
    const abandoned =
      existing.state === "running" && Date.now() - existing.heartbeatAt.getTime() > env().RUN_LOST_AFTER_MS;
    if (expired || abandoned) {
      await db.idempotencyKey.deleteMany({
        where: { organizationId, key, createdAt: existing.createdAt, heartbeatAt: existing.heartbeatAt },
      });
      continue;
    }
    if (existing.state !== "done") {
      throw new AppError(
        "conflict",
        "The first request with this Idempotency-Key is still running; retry shortly. Nothing was written.",
      );
    }
    if (existing.requestHash !== requestHash) {
      throw new AppError(
        "conflict",
        "This Idempotency-Key was already used with another path or body; use a new key for a new request. Nothing was written.",
      );
    }
    return { status: existing.responseStatus ?? 200, body: existing.responseBody };
  }
  throw new AppError(
    "conflict",
    "This Idempotency-Key is in use by concurrent requests; retry shortly. Nothing was written.",
  );
}

/** Remembers the first request's answer for 24 hours. */
export async function finishIdempotencyKey(
  db: Db,
  organizationId: string,
  key: string,
  response: StoredResponse,
): Promise<void> {
  dropKey(db, organizationId, key);
  const { rowCount } = await db.pool.query({
    name: "atrium_idempotency_finish",
    text: `update idempotency_keys set state = 'done', response_status = $3, response_body = coalesce($4::jsonb, response_body)
      where organization_id = $1::uuid and key = $2`,
    values: [organizationId, key, response.status, response.body == null ? null : JSON.stringify(response.body)],
  });
  if (rowCount !== 1) throw new Error("The idempotency key to finish is gone");
  maybeSweep(db);
}

/** Forgets a key whose first request failed, so the client may retry with it. */
export async function releaseIdempotencyKey(db: Db, organizationId: string, key: string): Promise<void> {
  dropKey(db, organizationId, key);
  await db.idempotencyKey.deleteMany({ where: { organizationId, key, state: "running" } });
}

/**
 * Forgets the key of a conversation stream whose run failed after it started (the key named the
 * run from its start, so a retry attaches to it), unless the key names another run by now.
 */
export async function releaseStreamKey(
  db: Db,
  organizationId: string,
  key: string,
  executionId: string,
): Promise<void> {
  await db.$executeRaw`delete from idempotency_keys where organization_id = ${organizationId}::uuid and key = ${key} and response_body->>'execution_id' = ${executionId}`;
}

/**
 * Runs `work` once per (organization, key). `work` returns the response to remember; a failure
 * forgets the key so the client may retry. `replayed` tells the door to say so.
 */
export async function withIdempotency(
  db: Db,
  organizationId: string,
  key: string | null | undefined,
  requestHash: string,
  work: () => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  if (key === null || key === undefined) return { ...(await work()), replayed: false };
  const remembered = await claimIdempotencyKey(db, organizationId, key, requestHash);
  if (remembered) return { ...remembered, replayed: true };
  let response: StoredResponse;
  try {
    response = await work();
  } catch (error) {
    await releaseIdempotencyKey(db, organizationId, key);
    throw error;
  }
  await finishIdempotencyKey(db, organizationId, key, response);
  return { ...response, replayed: false };
}

let lastSweep = 0;
/**
 * At most hourly per process, deletes what is kept 24 hours: idempotency keys, and conversation
 * runs with their stored events (services/runs/conversation-runs.ts, which calls it as a run starts).
 */
export function maybeSweep(db: Db): void {
  if (Date.now() - lastSweep < 3_600_000) return;
  lastSweep = Date.now();
  db.$executeRaw`delete from idempotency_keys where created_at < now() - interval '24 hours'`.catch((error: unknown) =>
    logger().error({ err: error }, "Idempotency sweep failed"),
  );
  db.$executeRaw`delete from conversation_runs where created_at < now() - interval '24 hours'`.catch((error: unknown) =>
    logger().error({ err: error }, "Conversation runs sweep failed"),
  );
}
