// The request checks that come before any handler, in this order (the first failure answers):
// header → secret → revoked → member removed → (MCP: personal key) → plan → switch → rate limit.
import { env } from "@/env";
import type { Role, Scope } from "@/schemas/auth";
import type { Db } from "@/server/db";
import { logger } from "@/server/observability/log";
import { AppError } from "@/server/errors";
import type { KeyActor } from "./actor";
import { NO_FLUSH, rateLimitHeaders, settleRateLimit, uncountHit, windowAt, type RateLimitResult } from "./rate-limit";
import { hashSecret } from "./secrets";

/** Which door the request came through; each has its own organization switch. */
export type Door = "api" | "apps" | "mcp";

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
}

const BEARER = /^Bearer +([^\s]+)$/i;

/**
 * A 401 of the key doors, with the `WWW-Authenticate` challenge RFC 6750 asks for: the scheme
 * alone when no credentials came, `invalid_token` when a key came and is not usable.
 */
function keyRefusal(code: "unauthorized" | "invalid_api_key" | "api_key_revoked" | "member_removed", message: string): AppError {
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
 * Looks the key up and counts the request against its rate limit in one round trip ($1 the
 * bucket, $2 the window, $3 the secret's hash). Only existing keys are counted, and a request
 * refused by a later check is uncounted again, so refusals never use up capacity. Its commit does
 * not wait for a WAL flush (NO_FLUSH in rate-limit.ts).
 */
const KEY_CHECK_SQL = `
  with no_flush as (${NO_FLUSH}), cur as (
    insert into rate_limit_counters (bucket, window_start, count)
    select $1, $2, 1 from no_flush where exists (select 1 from api_keys where secret_hash = $3)
    on conflict (bucket, window_start) do update set count = rate_limit_counters.count + 1
    returning count
  )
  select k.id, k.organization_id, k.kind::text as kind, k.name, k.scopes, k.revoked_at, k.last_used_at,
    o.plan::text as plan, o.api_enabled, o.apps_api_enabled, o.mcp_enabled,
    m.id as member_id, m.role::text as role, m.removed_at, u.email,
    (select count from cur) as current,
    coalesce((select c.count from rate_limit_counters c where c.bucket = $1 and c.window_start = $2 - 1), 0) as previous
  from api_keys k
  join organizations o on o.id = k.organization_id
  left join members m on m.id = k.member_id
  left join users u on u.id = m.user_id
  where k.secret_hash = $3`;

/** The first check a found key fails, in the order above, or null. */
function refusalOf(key: KeyRow, door: Door): AppError | null {
  if (key.revoked_at) return keyRefusal("api_key_revoked", "This API key has been revoked.");
  if (key.kind === "personal" && (!key.member_id || key.removed_at)) {
    return keyRefusal("member_removed", "The owner of this personal key is no longer a member of the organization.");
  }
  if (door === "mcp" && key.kind !== "personal") return new AppError("member_key_required", "The MCP server accepts personal keys only.");
  if (key.plan === "free") {
    return new AppError("feature_not_available", "The organization's plan does not include the developer API (Pro and Agency do).");
  }
  if (!key.api_enabled && door !== "mcp") return new AppError("api_disabled", "The developer API is turned off for this organization.");
  if (!key.apps_api_enabled && door === "apps") return new AppError("api_disabled", "The Apps endpoints are turned off for this organization.");
  if (!key.mcp_enabled && door === "mcp") return new AppError("api_disabled", "The MCP server is turned off for this organization.");
  return null;
}

/** Rate limits are counted per key: the limit "per key" of the reference. */
export async function authenticateApiKey(db: Db, authorization: string | null, door: Door): Promise<Authenticated> {
  const secretHash = hashSecret(bearerToken(authorization));
  const bucket = `key:${secretHash}`;
  const position = windowAt();
  // A named statement is parsed and planned once per connection, not on every request.
  const { rows } = await db.pool.query<KeyRow & { current: number; previous: number }>({
    name: "atrium_key_check",
    text: KEY_CHECK_SQL,
    values: [bucket, position.window, secretHash],
  });
  const key = rows[0];
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
  touchLastUsed(db, key);

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
    },
  };
}

/** `lastUsedAt` to the minute: a write at most once a minute per key, off the request path, not waiting for a WAL flush. */
function touchLastUsed(db: Db, key: KeyRow): void {
  if (key.last_used_at && Date.now() - key.last_used_at.getTime() < LAST_USED_PRECISION_MS) return;
  db.pool
    .query(`with no_flush as (${NO_FLUSH}) update api_keys set last_used_at = now() from no_flush where id = $1`, [key.id])
    .catch((error: unknown) => logger().error({ err: error }, "Could not record key use"));
}
