// An end user's data rights (the contract's "Data rights, retention and members' second factor"):
// the export of everything held about them, and the erasure that deletes their content and
// replaces their name and address with a tombstone everywhere, keeping the numbers (executions'
// credits and tokens, usage) so the organization's totals never move.
//
// DATA_RIGHTS_COVERAGE names, for every table that references an end user or holds what they
// wrote, what the export takes from it and what the erasure does to it;
// tests/provisioning/data-rights.test.ts walks the Prisma schema and fails on a model that
// references an end user and is missing here, so a new table cannot be forgotten.
import type { EndUserExport, EraseEndUserOutput } from "@/schemas/provisioning/end-user-data";
import type { EndUserDetail } from "@/schemas/provisioning/provisioning";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { guarded } from "@/server/auth/guarded";
import { getEndUser } from "./end-user-reads";
import { recordEvent } from "../org/events";

export const DATA_RIGHTS_COVERAGE = {
  EndUser: { exported: "endUser", erased: "email and name replaced by a tombstone, erasedAt set" },
  Subscription: { exported: "endUser.subscriptions", erased: "kept, canceled: the pools' numbers" },
  Grant: { exported: "endUser.grants", erased: "deleted" },
  GroupMember: { exported: "groups", erased: "deleted" },
  EndUserSession: { exported: "portalSessions (no token)", erased: "deleted" },
  EndUserSignInCode: { exported: "nothing: a code is a secret", erased: "deleted" },
  EndUserExportLink: { exported: "nothing: a link is a secret (its use is in auditEvents)", erased: "deleted" },
  Conversation: { exported: "conversations", erased: "deleted with their messages" },
  Attachment: { exported: "attachments (metadata, not the files)", erased: "deleted, used or not" },
  ConversationRun: { exported: "their events are the conversations' messages", erased: "deleted with their events" },
  Execution: { exported: "executions", erased: "content emptied, numbers kept; a run awaiting approval ends failed" },
  // Named through its execution (same id), so the schema walk cannot see it: listed by hand.
  ExecutionApproval: { exported: "approvals", erased: "deleted (the decision stays in the audit log)" },
  RunRefusal: { exported: "nothing: numbers only", erased: "kept: numbers only" },
  CreditRequest: { exported: "creditRequests", erased: "message emptied" },
  DirectoryUser: { exported: "directoryUsers", erased: "deleted" },
  Knowledgebase: { exported: "notebookPages", erased: "their notebook deleted with its pages" },
  AuditEvent: { exported: "auditEvents naming them", erased: "their name and address replaced by the tombstone" },
  OutboxMessage: { exported: "nothing: mail sent to them is in auditEvents", erased: "mail to their address deleted" },
} as const;

/** The address an erased end user keeps: unique, and never one anybody can receive mail at. */
export function tombstoneEmail(endUserId: string): string {
  return `erased-${endUserId}@erased.invalid`;
}

const ERASED_LABEL = "Erased end user";

/**
 * The events that name end user $2 of address $4: by id as actor or target, by address as a
 * label (a subscription's or grant's event), or inside their changes or data.
 */
const NAMING_THEM = `(actor_id = $2 or target_id = $2 or actor_label = $4 or target_label = $4
    or strpos(changes::text, $2) > 0 or strpos(changes::text, $4) > 0
    or strpos(coalesce(data::text, ''), $2) > 0 or strpos(coalesce(data::text, ''), $4) > 0)`;

/** `changes` or `data` with the person's address replaced wherever it occurs ($4 by $5). */
const redactedAddress = (column: string) => `replace(${column}::text, $4, $5)::jsonb`;

/**
 * The events naming the end user ($2, of organization $1): their labels become $3, the address
 * and user agent of their own requests are forgotten, and their address ($4) becomes the tombstone's ($5).
 */
const REDACT_AUDIT_EVENTS = `update audit_events set
    actor_label = case when actor_id = $2 or actor_label = $4 then $3 else actor_label end,
    target_label = case when target_id = $2 or target_label = $4 then $3 else target_label end,
    ip_address = case when actor_id = $2 then null else ip_address end,
    user_agent = case when actor_id = $2 then null else user_agent end,
    changes = ${redactedAddress("changes")},
    data = ${redactedAddress("data")}
  where organization_id = $1::uuid and ${NAMING_THEM}`;

/**
 * Their name ($3) as a whole JSON string value in those events' changes and data becomes "".
 * Runs before REDACT_AUDIT_EVENTS, while $4 is still their address in those events.
 */
const REDACT_NAME_IN_AUDIT_EVENTS = `update audit_events set
    changes = replace(changes::text, to_json($3::text)::text, '""')::jsonb,
    data = replace(data::text, to_json($3::text)::text, '""')::jsonb
  where organization_id = $1::uuid and ${NAMING_THEM}`;

/** Rows read per query while the export is written: memory holds one page, whatever the history. */
export const EXPORT_PAGE_ROWS = 200;

/** Where a keyset page starts: after the last row of the page before, in (time, id) order. */
type Cursor = { at: Date; id: string } | null;

/** A Prisma `where` for the rows after `cursor` in (column, id) order. */
function after(column: string, cursor: Cursor) {
  if (!cursor) return {};
  return { OR: [{ [column]: { gt: cursor.at } }, { [column]: cursor.at, id: { gt: cursor.id } }] };
}

/**
 * A JSON array written page by page: `read` answers the rows after a cursor, `cursorOf` the cursor
 * after a row, `write` a row's JSON text (several strings when a row is large itself).
 */
async function* jsonArray<Row>(
  read: (cursor: Cursor) => Promise<Row[]>,
  cursorOf: (row: Row) => Cursor,
  write: (row: Row) => AsyncIterable<string> | string,
): AsyncGenerator<string> {
  yield "[";
  let cursor: Cursor = null;
  let first = true;
  for (;;) {
    const rows = await read(cursor);
    for (const row of rows) {
      if (!first) yield ",";
      first = false;
      const text = write(row);
      if (typeof text === "string") yield text;
      else yield* text;
    }
    if (rows.length < EXPORT_PAGE_ROWS) break;
    cursor = cursorOf(rows[rows.length - 1]!);
  }
  yield "]";
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/**
 * The export document as JSON text, written section by section and each long section (the
 * conversations with their messages, executions, audit events…) a page at a time, so a large
 * history is never held whole in memory. The same document as exportEndUser, key for key.
 */
async function* exportDocument(db: Db, organizationId: string, endUser: EndUserDetail): AsyncGenerator<string> {
  const endUserId = endUser.id;
  const take = EXPORT_PAGE_ROWS;
  yield `{"exportedAt":${JSON.stringify(new Date().toISOString())},"endUser":${JSON.stringify(endUser)}`;

  yield ',"groups":';
  yield* jsonArray(
    (cursor) =>
      db.groupMember.findMany({
        where: {
          endUserId,
          group: { organizationId },
          ...(cursor
            ? { OR: [{ addedAt: { gt: cursor.at } }, { addedAt: cursor.at, groupId: { gt: cursor.id } }] }
            : {}),
        },
        select: { addedAt: true, groupId: true, group: { select: { id: true, name: true } } },
        orderBy: [{ addedAt: "asc" }, { groupId: "asc" }],
        take,
      }),
    (row) => ({ at: row.addedAt, id: row.groupId }),
    (row) => JSON.stringify({ id: row.group.id, name: row.group.name, addedAt: row.addedAt.toISOString() }),
  );

  yield ',"portalSessions":';
  yield* jsonArray(
    (cursor) =>
      db.endUserSession.findMany({
        where: { endUserId, organizationId, ...after("createdAt", cursor) },
        select: { id: true, createdAt: true, expiresAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take,
      }),
    (row) => ({ at: row.createdAt, id: row.id }),
    (row) => JSON.stringify({ id: row.id, createdAt: iso(row.createdAt), expiresAt: iso(row.expiresAt) }),
  );

  yield ',"conversations":';
  yield* jsonArray(
    (cursor) =>
      db.conversation.findMany({
        where: { endUserId, organizationId, ...after("createdAt", cursor) },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take,
      }),
    (row) => ({ at: row.createdAt, id: row.id }),
    (row) => conversationJson(db, row),
  );

  yield ',"executions":';
  yield* jsonArray(
    (cursor) =>
      db.execution.findMany({
        where: { endUserId, organizationId, ...after("createdAt", cursor) },
        select: {
          id: true,
          kind: true,
          itemId: true,
          status: true,
          credits: true,
          input: true,
          output: true,
          feedbackRating: true,
          feedbackReason: true,
          createdAt: true,
        },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take,
      }),
    (row) => ({ at: row.createdAt, id: row.id }),
    (row) => JSON.stringify({ ...row, createdAt: row.createdAt.toISOString() }),
  );

  yield ',"approvals":';
  yield* jsonArray(
    (cursor) =>
      db.$queryRaw<
        {
          executionId: string;
          nodeId: string;
          message: string;
          status: string;
          decidedBy: string | null;
          decidedAt: Date | null;
          comment: string | null;
          createdAt: Date;
        }[]
      >`select a.id as "executionId", a.node_id as "nodeId", a.message, a.status, a.decided_by as "decidedBy",
            a.decided_at as "decidedAt", a.comment, a.created_at as "createdAt"
          from execution_approvals a join executions x on x.id = a.id and x.organization_id = a.organization_id
          where a.organization_id = ${organizationId}::uuid and x.end_user_id = ${endUserId}::uuid
            and (${cursor?.at ?? null}::timestamptz is null
              or (a.created_at, a.id) > (${cursor?.at ?? null}::timestamptz, ${cursor?.id ?? null}::uuid))
          order by a.created_at, a.id
          limit ${take}`,
    (row) => ({ at: row.createdAt, id: row.executionId }),
    (row) => JSON.stringify({ ...row, decidedAt: iso(row.decidedAt), createdAt: row.createdAt.toISOString() }),
  );

  yield ',"creditRequests":';
  yield* jsonArray(
    (cursor) =>
      db.creditRequest.findMany({
        where: { endUserId, organizationId, ...after("createdAt", cursor) },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take,
      }),
    (row) => ({ at: row.createdAt, id: row.id }),
    (row) =>
      JSON.stringify({
        id: row.id,
        message: row.message,
        status: row.status,
        createdAt: row.createdAt.toISOString(),
        resolvedAt: iso(row.resolvedAt),
      }),
  );

  yield ',"notebookPages":';
  yield* jsonArray(
    (cursor) =>
      db.page.findMany({
        where: { organizationId, knowledgebase: { endUserId, organizationId }, ...after("createdAt", cursor) },
        select: { id: true, title: true, markdown: true, updatedAt: true, createdAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take,
      }),
    (row) => ({ at: row.createdAt, id: row.id }),
    (row) =>
      JSON.stringify({ id: row.id, title: row.title, markdown: row.markdown, updatedAt: row.updatedAt.toISOString() }),
  );

  // A directory holds one or two links per person: read at once.
  const directoryUsers = await db.directoryUser.findMany({
    where: { endUserId, organizationId },
    select: { userName: true, externalId: true, active: true, attributes: true },
  });
  yield `,"directoryUsers":${JSON.stringify(directoryUsers)}`;

  yield ',"auditEvents":';
  yield* jsonArray(
    (cursor) =>
      db.auditEvent.findMany({
        where: {
          organizationId,
          OR: [
            { targetId: endUserId },
            { actorId: endUserId },
            { targetLabel: endUser.email },
            { actorLabel: endUser.email },
          ],
          AND: [after("occurredAt", cursor)],
        },
        orderBy: [{ occurredAt: "asc" }, { id: "asc" }],
        take,
      }),
    (row) => ({ at: row.occurredAt, id: row.id }),
    (row) =>
      JSON.stringify({
        id: row.id,
        occurredAt: row.occurredAt.toISOString(),
        action: row.action,
        door: row.door,
        actorLabel: row.actorLabel,
        targetType: row.targetType,
        targetLabel: row.targetLabel,
        changes: row.changes,
      }),
  );

  yield ',"attachments":';
  yield* jsonArray(
    (cursor) =>
      db.attachment.findMany({
        where: { endUserId, organizationId, ...after("createdAt", cursor) },
        select: { id: true, conversationId: true, name: true, format: true, sizeBytes: true, createdAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take,
      }),
    (row) => ({ at: row.createdAt, id: row.id }),
    (row) => JSON.stringify({ ...row, createdAt: row.createdAt.toISOString() }),
  );
  yield "}";
}

/** One conversation with its messages, these read a page at a time too (a conversation may be long). */
async function* conversationJson(
  db: Db,
  row: {
    id: string;
    appId: string;
    portalId: string | null;
    title: string;
    hiddenAt: Date | null;
    createdAt: Date;
    updatedAt: Date;
  },
): AsyncGenerator<string> {
  const head = JSON.stringify({
    id: row.id,
    appId: row.appId,
    portalId: row.portalId,
    title: row.title,
    hiddenAt: iso(row.hiddenAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    messages: [],
  });
  yield head.slice(0, -"[]}".length);
  yield* jsonArray(
    (cursor) =>
      db.conversationMessage.findMany({
        where: { conversationId: row.id, ...after("createdAt", cursor) },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: EXPORT_PAGE_ROWS,
      }),
    (message) => ({ at: message.createdAt, id: message.id }),
    (message) =>
      JSON.stringify({
        id: message.id,
        role: message.role,
        content: message.content,
        citations: message.citations,
        supersededAt: iso(message.supersededAt),
        createdAt: message.createdAt.toISOString(),
      }),
  );
  yield "}";
}

/**
 * The export as JSON text, a page at a time (the downloads stream it): checks the caller and
 * finds the end user before the first piece, so a refusal is an error answer, never a cut document.
 */
export const streamEndUserExport = guarded(
  { scope: "end_users:read", may: "settings" },
  async function streamEndUserExport(
    db: Db,
    actor: Actor,
    input: { endUserId: string },
  ): Promise<AsyncGenerator<string>> {
    const endUser = await getEndUser(db, actor, { endUserId: input.endUserId });
    return exportDocument(db, actor.organizationId, endUser);
  },
);

/** The export as one value, for the doors that answer JSON whole (the API's GET, the console). */
export const exportEndUser = guarded(
  { scope: "end_users:read", may: "settings" },
  async function exportEndUser(db: Db, actor: Actor, input: { endUserId: string }): Promise<EndUserExport> {
    let text = "";
    for await (const piece of await streamEndUserExport(db, actor, input)) text += piece;
    return JSON.parse(text) as EndUserExport;
  },
);

/**
 * The portal's download of the signed-in end user's own export, the same document as the admin's,
 * as JSON text a page at a time. Their portal session established who they are; the export reads
 * them alone, as the operator would.
 */
export function streamOwnExport(db: Db, actor: EndUserActor): Promise<AsyncGenerator<string>> {
  const operator: Actor = { kind: "operator", organizationId: actor.organizationId, origin: actor.origin };
  return streamEndUserExport(db, operator, { endUserId: actor.endUser.id });
}

/**
 * Erases an end user in one transaction. Idempotent: erasing an erased end user answers when it
 * was erased and changes nothing. Their address is unknown afterwards, so provisioning it again
 * creates a new end user.
 */
export const eraseEndUser = guarded(
  { scope: "end_users:write", may: "delete" },
  async function eraseEndUser(db: Db, actor: Actor, input: { endUserId: string }): Promise<EraseEndUserOutput> {
    const organizationId = actor.organizationId;
    return db.$transaction(
      async (tx) => {
        const [user] = await tx.$queryRaw<{ id: string; email: string; full_name: string; erased_at: Date | null }[]>`
          select id, email, full_name, erased_at from end_users
          where id = ${input.endUserId}::uuid and organization_id = ${organizationId}::uuid for update`;
        if (!user) throw new AppError("not_found", "No end user with that id.");
        if (user.erased_at) return { endUser: { id: user.id, erasedAt: user.erased_at.toISOString() } };
        const tombstone = tombstoneEmail(user.id);
        const endUserId = user.id;
        await tx.$executeRaw`delete from conversation_runs where end_user_id = ${endUserId}::uuid and organization_id = ${organizationId}::uuid`;
        await tx.$executeRaw`delete from conversations where end_user_id = ${endUserId}::uuid and organization_id = ${organizationId}::uuid`;
        // What their runs waited for: the message and the state it would continue from hold their words.
        await tx.$executeRaw`delete from execution_approvals a using executions x
          where x.id = a.id and x.organization_id = ${organizationId}::uuid and a.organization_id = ${organizationId}::uuid
            and x.end_user_id = ${endUserId}::uuid`;
        // Their files, those no turn has used yet too (the rest went with their conversations).
        await tx.$executeRaw`delete from attachments where end_user_id = ${endUserId}::uuid and organization_id = ${organizationId}::uuid`;
        await tx.$executeRaw`update executions set input = '', output = '', trace = '[]'::jsonb, feedback_reason = null,
            status = case when status = 'awaiting_approval' then 'failed' else status end,
            error = case when status = 'awaiting_approval' then 'The end user''s data was erased.' else error end
          where end_user_id = ${endUserId}::uuid and organization_id = ${organizationId}::uuid`;
        await tx.$executeRaw`update credit_requests set message = ''
          where end_user_id = ${endUserId}::uuid and organization_id = ${organizationId}::uuid`;
        await tx.$executeRaw`delete from knowledgebases where end_user_id = ${endUserId}::uuid and organization_id = ${organizationId}::uuid`;
        await tx.$executeRaw`delete from directory_users where end_user_id = ${endUserId}::uuid and organization_id = ${organizationId}::uuid`;
        await tx.$executeRaw`delete from grants where end_user_id = ${endUserId}::uuid and organization_id = ${organizationId}::uuid`;
        await tx.$executeRaw`delete from group_members where end_user_id = ${endUserId}::uuid
          and group_id in (select id from user_groups where organization_id = ${organizationId}::uuid)`;
        await tx.$executeRaw`delete from end_user_sessions where end_user_id = ${endUserId}::uuid and organization_id = ${organizationId}::uuid`;
        await tx.$executeRaw`delete from end_user_sign_in_codes where end_user_id = ${endUserId}::uuid and organization_id = ${organizationId}::uuid`;
        await tx.$executeRaw`delete from end_user_export_links where end_user_id = ${endUserId}::uuid and organization_id = ${organizationId}::uuid`;
        await tx.$executeRaw`update subscriptions set status = 'canceled' where end_user_id = ${endUserId}::uuid
          and tier_plan_id in (select id from tier_plans where organization_id = ${organizationId}::uuid)`;
        await tx.$executeRaw`delete from outbox_messages where organization_id = ${organizationId}::uuid and lower("to") = ${user.email}`;
        // The audit log keeps its shape: the person's name and address become the tombstone's.
        await tx.$executeRaw`select set_config('atrium.audit_erasure', 'on', true)`;
        if (user.full_name !== "")
          await tx.$executeRawUnsafe(
            REDACT_NAME_IN_AUDIT_EVENTS,
            organizationId,
            endUserId,
            user.full_name,
            user.email,
          );
        await tx.$executeRawUnsafe(REDACT_AUDIT_EVENTS, organizationId, endUserId, ERASED_LABEL, user.email, tombstone);
        await tx.$executeRaw`select set_config('atrium.audit_erasure', 'off', true)`;
        const erasedAt = new Date();
        await tx.$executeRaw`update end_users set email = ${tombstone}, full_name = '', email_verified_at = null,
            last_seen_at = null, erased_at = ${erasedAt}, deleted_at = coalesce(deleted_at, ${erasedAt}),
            revoked_at = coalesce(revoked_at, ${erasedAt})
          where id = ${endUserId}::uuid`;
        await recordEvent(tx, actor, {
          action: "end_user.erase",
          target: { type: "end_user", id: endUserId, label: ERASED_LABEL },
          changes: {},
          data: { id: endUserId, erasedAt: erasedAt.toISOString() },
        });
        return { endUser: { id: endUserId, erasedAt: erasedAt.toISOString() } };
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
  },
);
