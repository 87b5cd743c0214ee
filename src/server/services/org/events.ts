// Changes become events in one place: recordEvent() writes one row of audit_events beside each
// write, in the write's own transaction (a transactional outbox). The audit log reads that table,
// and a trigger queues the webhook deliveries of an event that announces a webhook type
// (prisma/migrations/20261127140000_audit_events_and_webhooks), so a rolled-back change is
// neither logged nor sent. Services never call a webhook sender.
import { channelOf, type Actor, type EndUserActor, type RequestOrigin } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import type { Prisma } from "@/generated/prisma/client";

type Tx = Prisma.TransactionClient;

/** Background work of the installation itself (the indexing worker, the retention sweep). */
export interface SystemActor {
  kind: "system";
  organizationId: string;
  /** The request it answers, when there is one (a refused embed token). */
  origin?: RequestOrigin;
}

export type EventActor = Actor | EndUserActor | SystemActor;

export type ActorType = "member" | "org_key" | "personal_key" | "end_user" | "directory" | "operator" | "system";

export interface EventInput {
  /** resource.verb, e.g. "end_user.update". */
  action: string;
  target: { type: string; id?: string | null; label?: string | null };
  /** { field: [before, after] }; secrets pass SECRET_CHANGED, never their value. */
  changes?: Record<string, readonly [unknown, unknown]>;
  /** The resource as the REST API shows it: the `data` of the webhook this event announces. */
  data?: unknown;
  outcome?: "success" | "failure";
}

/** What a secret's change is recorded as. */
export const SECRET_CHANGED = "changed";

/**
 * The webhook event type each action announces (the contract's list); an action not here is
 * logged and sent nowhere.
 */
export const WEBHOOK_TYPE_OF_ACTION: Readonly<Record<string, string>> = {
  "end_user.create": "end_user.created",
  "end_user.update": "end_user.updated",
  "end_user.revoke": "end_user.updated",
  "end_user.suspend": "end_user.suspended",
  "end_user.reactivate": "end_user.reactivated",
  "end_user.delete": "end_user.deleted",
  "end_user.erase": "end_user.erased",
  "subscription.create": "subscription.created",
  "subscription.cancel": "subscription.canceled",
  "review.create": "review.requested",
  "review.approve": "review.decided",
  "review.reject": "review.decided",
  "source.ready": "source.ready",
  "source.failed": "source.failed",
  "page.create": "page.changed",
  "page.update": "page.changed",
  "page.move": "page.changed",
  "page.delete": "page.changed",
  "app.publish": "app.published",
  "execution.failed": "execution.failed",
  "execution.await_approval": "execution.awaiting_approval",
  "execution.complete": "execution.completed",
  "credits.low": "credits.low",
  "credits.exhausted": "credits.exhausted",
  "directory.sync_failed": "directory.sync_failed",
};

/** Every webhook event type an endpoint may listen for. */
export const WEBHOOK_EVENT_TYPES = [...new Set(Object.values(WEBHOOK_TYPE_OF_ACTION))].sort();

/**
 * A resource bigger than this is announced as a reference the receiver fetches, never cut:
 * `{ id, object: "reference", path }`. Kept well under what receivers accept in one request.
 */
export const MAX_WEBHOOK_DATA_BYTES = 256 * 1024;

export function actorOf(actor: EventActor): { type: ActorType; id: string | null; label: string } {
  switch (actor.kind) {
    case "member":
      return { type: "member", id: actor.member.id, label: actor.member.email };
    case "key":
      if (actor.origin?.door === "scim") return { type: "directory", id: actor.keyId, label: actor.keyName };
      return actor.keyKind === "personal"
        ? {
            type: "personal_key",
            id: actor.keyId,
            label: actor.member ? `${actor.keyName} (${actor.member.email})` : actor.keyName,
          }
        : { type: "org_key", id: actor.keyId, label: actor.keyName };
    case "end_user":
      return { type: "end_user", id: actor.endUser.id, label: actor.endUser.email };
    case "operator":
      return { type: "operator", id: null, label: "operator" };
    case "system":
      return { type: "system", id: null, label: "Atrium" };
  }
}

function originOf(actor: EventActor): RequestOrigin {
  const origin = "origin" in actor ? actor.origin : undefined;
  return origin ?? { door: channelOf(actor), requestId: null, ipAddress: null, userAgent: null };
}

/** The webhook `data` as stored: the resource, or a reference when it is too large to send whole. */
function webhookData(event: EventInput, webhookType: string | undefined): string | null {
  if (!webhookType || event.data === undefined) return null;
  const json = JSON.stringify(event.data);
  if (Buffer.byteLength(json) <= MAX_WEBHOOK_DATA_BYTES) return json;
  return JSON.stringify({ id: event.target.id ?? null, object: "reference", type: event.target.type });
}

/** Only the fields that changed, as [before, after]. */
export function changesBetween<T extends Record<string, unknown>>(
  before: T,
  after: Partial<T>,
  fields: readonly (keyof T & string)[],
): Record<string, [unknown, unknown]> {
  const changes: Record<string, [unknown, unknown]> = {};
  for (const field of fields) {
    if (after[field] === undefined) continue;
    const was = before[field] instanceof Date ? (before[field] as Date).toISOString() : before[field];
    const now = after[field] instanceof Date ? (after[field] as Date).toISOString() : after[field];
    if (JSON.stringify(was) !== JSON.stringify(now)) changes[field] = [was ?? null, now ?? null];
  }
  return changes;
}

/**
 * Records one event. Pass the transaction of the change (an interactive `tx`, or `db` inside an
 * array passed to `db.$transaction([...])`): the event commits or rolls back with it.
 */
export function recordEvent(
  db: Pick<Db, "$executeRaw"> | Pick<Tx, "$executeRaw">,
  actor: EventActor,
  event: EventInput,
): Prisma.PrismaPromise<number> {
  const who = actorOf(actor);
  const origin = originOf(actor);
  const webhookType = WEBHOOK_TYPE_OF_ACTION[event.action];
  return (db as Pick<Db, "$executeRaw">).$executeRaw`
    insert into audit_events (id, organization_id, occurred_at, actor_type, actor_id, actor_label, door, action, target_type, target_id, target_label,
      changes, request_id, ip_address, user_agent, outcome, webhook_type, data)
    values (gen_random_uuid(), ${actor.organizationId}::uuid, clock_timestamp(), ${who.type}, ${who.id}, ${who.label}, ${origin.door}, ${event.action},
      ${event.target.type}, ${event.target.id ?? null}, ${event.target.label ?? ""}, ${JSON.stringify(event.changes ?? {})}::jsonb,
      ${origin.requestId}, ${origin.ipAddress}, ${origin.userAgent}, ${event.outcome ?? "success"}, ${webhookType ?? null}, ${webhookData(event, webhookType)}::jsonb)`;
}

/** Runs `write` and records the event built from its result, in one transaction. */
export async function recorded<T>(
  db: Db,
  actor: EventActor,
  write: (tx: Tx) => Promise<T>,
  event: (result: T) => EventInput | null,
): Promise<T> {
  return db.$transaction(async (tx) => {
    const result = await write(tx);
    const input = event(result);
    if (input) await recordEvent(tx, actor, input);
    return result;
  });
}

/**
 * recordEvent() for a write that is one SQL statement (a hot path): a data-modifying CTE body
 * inserting one event per row of `from`, whose `select` gives, in order, action, target_type,
 * target_id, target_label, webhook_type and data (jsonb). Its parameters, from `$first` on, are
 * eventSqlParams(actor, changes), or eventSqlActorParams(actor) when `changes` is given: a jsonb
 * expression over `from` (each row's own before and after).
 */
export function eventInsertSql(first: number, select: string, from: string, changes?: string): string {
  const p = (n: number) => `$${first + n}`;
  return `insert into audit_events (id, organization_id, occurred_at, actor_type, actor_id, actor_label, door, request_id, ip_address, user_agent, changes, outcome,
      action, target_type, target_id, target_label, webhook_type, data)
    select gen_random_uuid(), ${p(0)}::uuid, clock_timestamp(), ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${changes ?? `${p(8)}::jsonb`}, 'success', ${select}
    from ${from}`;
}

export function eventSqlParams(
  actor: EventActor,
  changes: Record<string, readonly [unknown, unknown]> = {},
): unknown[] {
  return [...eventSqlActorParams(actor), JSON.stringify(changes)];
}

/** eventSqlParams() without the changes, for an eventInsertSql() given its own `changes` expression. */
export function eventSqlActorParams(actor: EventActor): unknown[] {
  const who = actorOf(actor);
  const origin = originOf(actor);
  return [
    actor.organizationId,
    who.type,
    who.id,
    who.label,
    origin.door,
    origin.requestId,
    origin.ipAddress,
    origin.userAgent,
  ];
}
