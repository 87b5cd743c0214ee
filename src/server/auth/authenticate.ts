// The request checks that come before any handler, in this order (the first failure answers):
// header → secret → revoked → member removed → (MCP: personal key) → plan → switch → rate limit.
import { env } from "@/env";
import { SCIM_SCOPE, type Role, type Scope } from "@/schemas/identity/auth";
import { NO_FLUSH, type Db } from "@/server/db";
import { logger } from "@/server/observability/log";
import { AppError } from "@/server/errors";
import { KeptAtEpoch } from "@/server/lookup-epoch";
import { joinTickBatch } from "@/server/tick-batches";
import type { KeyActor, RequestOrigin } from "./actor";
import {
  rateLimitHeaders,
  settleRateLimit,
  uncountHit,
  windowAt,
  type RateLimitResult,
  type WindowPosition,
} from "./rate-limit";
import { hashSecret } from "./secrets";

/** Which door the request came through; each has its own organization switch. */
export type Door = "api" | "apps" | "mcp" | "scim";

export interface Authenticated {
  actor: KeyActor;
  rateLimit: RateLimitResult;
}

interface KeyRow {
  id: string;
  organization_id: string;
  kind: "organization" | "personal";
  name: string;
  scopes: Scope[];
  revoked_at: Date | null;
  last_used_at: Date | null;
  plan: "free" | "pro" | "agency";
  api_enabled: boolean;
  apps_api_enabled: boolean;
  mcp_enabled: boolean;
  member_id: string | null;
  role: Role | null;
  removed_at: Date | null;
  email: string | null;
  /** The organization's lookup epoch read with the row (bigint, as text). */
  epoch: string;
}

/** What the key check reads of a key (`k`), its organization, member and user. */
const KEY_COLUMNS = `k.id, k.organization_id, k.kind::text as kind, k.name, k.scopes, k.revoked_at, k.last_used_at,
    o.plan::text as plan, o.api_enabled, o.apps_api_enabled, o.mcp_enabled,
    m.id as member_id, m.role::text as role, m.removed_at, u.email,
    coalesce(e.epoch, 0)::text as epoch`;
const KEY_JOINS = `join organizations o on o.id = k.organization_id
  left join members m on m.id = k.member_id
  left join users u on u.id = m.user_id
  left join lookup_epochs e on e.organization_id = k.organization_id`;

const BEARER = /^Bearer +([^\s]+)$/i;

/**
 * A 401 of the key doors, with the `WWW-Authenticate` challenge RFC 6750 asks for: the scheme
 * alone when no credentials came, `invalid_token` when a key came and is not usable.
 */
function keyRefusal(
  code: "unauthorized" | "invalid_api_key" | "api_key_revoked" | "member_removed",
  message: string,
): AppError {
  const challenge = code === "unauthorized" ? 'Bearer realm="atrium"' : 'Bearer realm="atrium", error="invalid_token"';
  return new AppError(code, message, {}, { headers: { "WWW-Authenticate": challenge } });
}
const LAST_USED_PRECISION_MS = 60_000;

export function bearerToken(header: string | null): string {
  const match = header ? BEARER.exec(header.trim()) : null;
  if (!match?.[1]) {
    throw keyRefusal("unauthorized", "Send your API key in the header `Authorization: Bearer <API_KEY>`.");
  }
  return match[1];
}

/**
 * Looks keys up and counts each request against its key's rate limit, for every request that
 * asked in the same turn of the event loop, in one round trip ($1 the secrets' hashes, $2 how
 * many requests came with each, $3 the window). Only existing keys are counted, and a request
 * refused by a later check is uncounted again, so refusals never use up capacity. Its commit
 * does not wait for a WAL flush (NO_FLUSH in src/server/db.ts). It reads each key's
 * organization's lookup epoch in the same snapshot, which is what lets the process keep the key.
 */
const KEY_CHECK_SQL = `
  with no_flush as (${NO_FLUSH}),
  asked as (select * from unnest($1::text[], $2::int[]) as a(secret_hash, hits)),
  cur as (
    insert into rate_limit_counters (bucket, window_start, count)
    select 'key:' || a.secret_hash, $3, a.hits from asked a, no_flush where exists (select 1 from api_keys where secret_hash = a.secret_hash)
    on conflict (bucket, window_start) do update set count = rate_limit_counters.count + excluded.count
    returning bucket, count
  )
  select k.secret_hash, ${KEY_COLUMNS},
    cur.count as current,
    coalesce((select c.count from rate_limit_counters c where c.bucket = cur.bucket and c.window_start = $3 - 1), 0) as previous
  from api_keys k
  join cur on cur.bucket = 'key:' || k.secret_hash
  ${KEY_JOINS}
  where k.secret_hash = any($1::text[])`;

/**
 * The count alone, for keys this process keeps ($4 their organizations): the statement every
 * request of a known key sends. Beside each count it reads the organization's lookup epoch; a key
 * whose epoch moved on since it was kept is looked up again (KEY_LOOKUP_SQL) before it is used.
 * The arrays are read by subscript, not unnest: PostgreSQL sizes an unnest from the values it is
 * given, so a plan for one key always looked cheaper than the statement's generic plan and the
 * statement was planned anew on every call, two thirds of its CPU for one key (BENCHMARKS.md,
 * 2026-12-05 23:10–00:00).
 */
const KEY_COUNT_SQL = `
  with no_flush as (${NO_FLUSH}),
  asked as (
    select ($1::text[])[i] as secret_hash, ($2::int[])[i] as hits, ($4::uuid[])[i] as organization_id
    from generate_subscripts($1::text[], 1) as i
  ),
  cur as (
    insert into rate_limit_counters (bucket, window_start, count)
    select 'key:' || a.secret_hash, $3, a.hits from asked a, no_flush
    on conflict (bucket, window_start) do update set count = rate_limit_counters.count + excluded.count
    returning bucket, count
  )
  select a.secret_hash, cur.count as current,
    coalesce((select c.count from rate_limit_counters c where c.bucket = cur.bucket and c.window_start = $3 - 1), 0) as previous,
    coalesce((select e.epoch from lookup_epochs e where e.organization_id = a.organization_id), 0) as epoch
  from asked a join cur on cur.bucket = 'key:' || a.secret_hash`;

/** Keys whose organization's epoch moved on, looked up again without counting them twice. */
const KEY_LOOKUP_SQL = `select k.secret_hash, ${KEY_COLUMNS} from api_keys k ${KEY_JOINS} where k.secret_hash = any($1::text[])`;

/** A key as the key check found it, with the request's own count in the current window. */
interface CountedKey extends KeyRow {
  secret_hash: string;
  current: number;
  previous: number;
}

interface KeyCheck {
  secretHash: string;
  settle: (result: { key: CountedKey | undefined; position: WindowPosition } | Error) => void;
}

/** Key checks asked for and not yet sent, per database: sent together once the current turn ends. */
const waiting = new WeakMap<Db, KeyCheck[]>();
/** The most requests one statement checks: a larger burst goes in several, one after another. */
export const KEY_CHECK_BATCH = 200;
/** The most keys a process keeps; past it the oldest kept is dropped. */
export const KEPT_KEYS = 10_000;

/**
 * The keys this process has looked up, by secret hash, each with the lookup epoch of its
 * organization read with it. One is used only after the request's count read the same epoch, so a
 * revocation, a member's removal or a scope change committed before that count is never missed,
 * in any process (contract: "Key checks"). Their count fields are the request's own and are never
 * read from here.
 */
const keptKeys = new KeptAtEpoch<KeyRow>(KEPT_KEYS);

/**
 * The key check of one request. Requests that arrive together (a server under load reads many
 * sockets in one turn of the event loop) share one statement: each is still counted in the
 * database before it is answered, in the order they asked, so every process sharing the
 * database enforces one limit, in fewer round trips.
 */
function checkKey(db: Db, secretHash: string): Promise<{ key: CountedKey | undefined; position: WindowPosition }> {
  return new Promise((resolve, reject) => {
    const check: KeyCheck = {
      secretHash,
      settle: (result) => (result instanceof Error ? reject(result) : resolve(result)),
    };
    joinTickBatch(waiting, db, check, KEY_CHECK_BATCH, sendKeyChecks);
  });
}

type Counts = Map<string, { current: number; previous: number }>;

async function sendKeyChecks(db: Db, checks: KeyCheck[]): Promise<void> {
  const position = windowAt();
  const isKept = (hash: string) => keptKeys.peek(db, hash) !== undefined;
  const hitsOf = (hashes: Iterable<string>) => {
    const hits = new Map<string, number>();
    for (const hash of hashes) hits.set(hash, (hits.get(hash) ?? 0) + 1);
    return hits;
  };
  const known = hitsOf(checks.map((check) => check.secretHash).filter(isKept));
  const unknown = hitsOf(checks.map((check) => check.secretHash).filter((hash) => !isKept(hash)));
  const keys = new Map<string, KeyRow>();
  const counts: Counts = new Map();
  try {
    await Promise.all([
      unknown.size > 0 && lookUpAndCount(db, unknown, position, keys, counts),
      known.size > 0 && countKept(db, known, position, keys, counts),
    ]);
  } catch (error) {
    for (const check of checks) check.settle(error instanceof Error ? error : new Error(String(error)));
    return;
  }
  // The requests of one key counted together took the counts up to `current`, one each, in order.
  const hits = hitsOf(checks.map((check) => check.secretHash));
  const counted = new Map<string, number>();
  for (const check of checks) {
    const key = keys.get(check.secretHash);
    const count = counts.get(check.secretHash);
    if (!key || !count) {
      check.settle({ key: undefined, position });
      continue;
    }
    const before = counted.get(check.secretHash) ?? 0;
    counted.set(check.secretHash, before + 1);
    const current = count.current - hits.get(check.secretHash)! + before + 1;
    check.settle({
      key: { ...key, secret_hash: check.secretHash, current, previous: count.previous },
      position,
    });
  }
}

/** One statement of a batch of key checks: counts `hits` in the window, filling in the keys found and their counts. */
type KeyStatement = (
  db: Db,
  hits: Map<string, number>,
  position: WindowPosition,
  keys: Map<string, KeyRow>,
  counts: Counts,
) => Promise<void>;

/** Keys not kept: looked up and counted in one statement (named: parsed and planned once per connection). */
const lookUpAndCount: KeyStatement = async (db, hits, position, keys, counts) => {
  const { rows } = await db.pool.query<CountedKey>({
    name: "atrium_key_check",
    text: KEY_CHECK_SQL,
    values: [[...hits.keys()], [...hits.values()], position.window],
  });
  for (const row of rows) {
    keys.set(row.secret_hash, keptKeys.keep(db, row.secret_hash, row, row.epoch));
    counts.set(row.secret_hash, { current: Number(row.current), previous: Number(row.previous) });
  }
};

/** Kept keys: counted, and looked up again only where their organization's epoch moved on. */
const countKept: KeyStatement = async (db, hits, position, keys, counts) => {
  const hashes = [...hits.keys()];
  const { rows } = await db.pool.query<{ secret_hash: string; current: number; previous: number; epoch: string }>({
    name: "atrium_key_count",
    text: KEY_COUNT_SQL,
    values: [
      hashes,
      [...hits.values()],
      position.window,
      hashes.map((hash) => keptKeys.peek(db, hash)!.value.organization_id),
    ],
  });
  const stale: string[] = [];
  for (const row of rows) {
    counts.set(row.secret_hash, { current: Number(row.current), previous: Number(row.previous) });
    const key = keptKeys.get(db, row.secret_hash, String(row.epoch));
    if (key) keys.set(row.secret_hash, key);
    else stale.push(row.secret_hash);
  }
  if (stale.length === 0) return;
  for (const hash of stale) keptKeys.drop(db, hash);
  const { rows: fresh } = await db.pool.query<KeyRow & { secret_hash: string }>({
    name: "atrium_key_lookup",
    text: KEY_LOOKUP_SQL,
    values: [stale],
  });
  for (const row of fresh) keys.set(row.secret_hash, keptKeys.keep(db, row.secret_hash, row, row.epoch));
};

/** The first check a found key fails, in the order above, or null. */
function refusalOf(key: KeyRow, door: Door): AppError | null {
  if (key.revoked_at) return keyRefusal("api_key_revoked", "This API key has been revoked.");
  if (key.kind === "personal" && (!key.member_id || key.removed_at)) {
    return keyRefusal("member_removed", "The owner of this personal key is no longer a member of the organization.");
  }
  if (door === "mcp" && key.kind !== "personal")
    return new AppError("member_key_required", "The MCP server accepts personal keys only.");
  if (key.plan === "free") {
    return new AppError(
      "feature_not_available",
      "The organization's plan does not include the developer API (Pro and Agency do).",
    );
  }
  if (!key.api_enabled && door !== "mcp")
    return new AppError("api_disabled", "The developer API is turned off for this organization.");
  if (!key.apps_api_enabled && door === "apps")
    return new AppError("api_disabled", "The Apps endpoints are turned off for this organization.");
  if (!key.mcp_enabled && door === "mcp")
    return new AppError("api_disabled", "The MCP server is turned off for this organization.");
  return null;
}

/** Rate limits are counted per key: the limit "per key" of the reference. */
export async function authenticateApiKey(
  db: Db,
  authorization: string | null,
  door: Door,
  origin?: RequestOrigin,
): Promise<Authenticated> {
  const secretHash = hashSecret(bearerToken(authorization));
  const bucket = `key:${secretHash}`;
  const { key, position } = await checkKey(db, secretHash);
  if (!key) throw keyRefusal("invalid_api_key", "This API key matches no active key.");
  const refusal = refusalOf(key, door);
  if (refusal) {
    await uncountHit(db, bucket, position);
    throw refusal;
  }

  const rateLimit = await settleRateLimit(db, bucket, env().RATE_LIMIT_PER_MINUTE, position, key.current, key.previous);
  if (!rateLimit.allowed) {
    throw new AppError(
      "rate_limited",
      `Too many requests: ${rateLimit.limit} per minute per key. Retry in ${rateLimit.retryAfterSeconds} s.`,
      {},
      {
        headers: rateLimitHeaders(rateLimit),
      },
    );
  }
  // A SCIM token does SCIM only, and only a SCIM token does SCIM (contract: the scim scope).
  if ((door === "scim") !== key.scopes.includes(SCIM_SCOPE)) {
    const message =
      door === "scim"
        ? "The SCIM service takes an organization key with the scim scope only."
        : "A key with the scim scope works only for the SCIM service at /scim/v2.";
    throw new AppError("insufficient_scope", message, {}, { headers: rateLimitHeaders(rateLimit) });
  }
  touchLastUsed(db, key, secretHash);

  return {
    rateLimit,
    actor: {
      kind: "key",
      organizationId: key.organization_id,
      keyId: key.id,
      keyName: key.name,
      keyKind: key.kind,
      scopes: key.scopes,
      member: key.member_id && key.role && key.email ? { id: key.member_id, role: key.role, email: key.email } : null,
      origin,
      lookupEpoch: key.epoch,
    },
  };
}

/** `lastUsedAt` to the minute: a write at most once a minute per key, off the request path, not waiting for a WAL flush. */
function touchLastUsed(db: Db, key: KeyRow, secretHash: string): void {
  if (key.last_used_at && Date.now() - key.last_used_at.getTime() < LAST_USED_PRECISION_MS) return;
  const kept = keptKeys.peek(db, secretHash);
  if (kept) kept.value.last_used_at = new Date();
  db.pool
    .query(`with no_flush as (${NO_FLUSH}) update api_keys set last_used_at = now() from no_flush where id = $1`, [
      key.id,
    ])
    .catch((error: unknown) => logger().error({ err: error }, "Could not record key use"));
}
