// The export of everything held about an end user (the contract's "Data rights, retention and
// members' second factor"), as a JSON document written a page at a time; DATA_RIGHTS_COVERAGE in
// end-user-data.ts names what it takes from each table.
import type { EndUserExport } from "@/schemas/provisioning/end-user-data";
import type { EndUserDetail, EndUserIdInput } from "@/schemas/provisioning/provisioning";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { guarded } from "@/server/auth/guarded";
import { getEndUser } from "./end-user-reads";

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

/** What a section of the export reads from: the organization's end user. */
interface ExportScope {
  db: Db;
  organizationId: string;
  endUserId: string;
  email: string;
}

/** The user groups they belong to, with when they joined. */
function groupsJson({ db, organizationId, endUserId }: ExportScope) {
  return jsonArray(
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
        take: EXPORT_PAGE_ROWS,
      }),
    (row) => ({ at: row.addedAt, id: row.groupId }),
    (row) => JSON.stringify({ id: row.group.id, name: row.group.name, addedAt: row.addedAt.toISOString() }),
  );
}

/** Their portal sessions (never a token). */
function portalSessionsJson({ db, organizationId, endUserId }: ExportScope) {
  return jsonArray(
    (cursor) =>
      db.endUserSession.findMany({
        where: { endUserId, organizationId, ...after("createdAt", cursor) },
        select: { id: true, createdAt: true, expiresAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: EXPORT_PAGE_ROWS,
      }),
    (row) => ({ at: row.createdAt, id: row.id }),
    (row) => JSON.stringify({ id: row.id, createdAt: iso(row.createdAt), expiresAt: iso(row.expiresAt) }),
  );
}

/** Their conversations, each with its messages. */
function conversationsJson({ db, organizationId, endUserId }: ExportScope) {
  return jsonArray(
    (cursor) =>
      db.conversation.findMany({
        where: { endUserId, organizationId, ...after("createdAt", cursor) },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: EXPORT_PAGE_ROWS,
      }),
    (row) => ({ at: row.createdAt, id: row.id }),
    (row) => conversationJson(db, row),
  );
}

/** Their runs' records. */
function executionsJson({ db, organizationId, endUserId }: ExportScope) {
  return jsonArray(
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
        take: EXPORT_PAGE_ROWS,
      }),
    (row) => ({ at: row.createdAt, id: row.id }),
    (row) => JSON.stringify({ ...row, createdAt: row.createdAt.toISOString() }),
  );
}

/** The approvals their runs waited for. */
function approvalsJson({ db, organizationId, endUserId }: ExportScope) {
  return jsonArray(
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
          limit ${EXPORT_PAGE_ROWS}`,
    (row) => ({ at: row.createdAt, id: row.executionId }),
    (row) => JSON.stringify({ ...row, decidedAt: iso(row.decidedAt), createdAt: row.createdAt.toISOString() }),
  );
}

/** Their requests for more credits. */
function creditRequestsJson({ db, organizationId, endUserId }: ExportScope) {
  return jsonArray(
    (cursor) =>
      db.creditRequest.findMany({
        where: { endUserId, organizationId, ...after("createdAt", cursor) },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: EXPORT_PAGE_ROWS,
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
}

/** The pages of their notebook. */
function notebookPagesJson({ db, organizationId, endUserId }: ExportScope) {
  return jsonArray(
    (cursor) =>
      db.page.findMany({
        where: { organizationId, knowledgebase: { endUserId, organizationId }, ...after("createdAt", cursor) },
        select: { id: true, title: true, markdown: true, updatedAt: true, createdAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: EXPORT_PAGE_ROWS,
      }),
    (row) => ({ at: row.createdAt, id: row.id }),
    (row) =>
      JSON.stringify({ id: row.id, title: row.title, markdown: row.markdown, updatedAt: row.updatedAt.toISOString() }),
  );
}

/** The directory users that stood for them. */
async function* directoryUsersJson({ db, organizationId, endUserId }: ExportScope): AsyncGenerator<string> {
  // A directory holds one or two links per person: read at once.
  const directoryUsers = await db.directoryUser.findMany({
    where: { endUserId, organizationId },
    select: { userName: true, externalId: true, active: true, attributes: true },
  });
  yield JSON.stringify(directoryUsers);
}

/** The audit events that name them, by id or address. */
function auditEventsJson({ db, organizationId, endUserId, email }: ExportScope) {
  return jsonArray(
    (cursor) =>
      db.auditEvent.findMany({
        where: {
          organizationId,
          OR: [{ targetId: endUserId }, { actorId: endUserId }, { targetLabel: email }, { actorLabel: email }],
          AND: [after("occurredAt", cursor)],
        },
        orderBy: [{ occurredAt: "asc" }, { id: "asc" }],
        take: EXPORT_PAGE_ROWS,
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
}

/** Their files' metadata (not the files). */
function attachmentsJson({ db, organizationId, endUserId }: ExportScope) {
  return jsonArray(
    (cursor) =>
      db.attachment.findMany({
        where: { endUserId, organizationId, ...after("createdAt", cursor) },
        select: { id: true, conversationId: true, name: true, format: true, sizeBytes: true, createdAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: EXPORT_PAGE_ROWS,
      }),
    (row) => ({ at: row.createdAt, id: row.id }),
    (row) => JSON.stringify({ ...row, createdAt: row.createdAt.toISOString() }),
  );
}

/** The sections after `endUser`, in the document's order (the keys of EndUserExport). */
const SECTIONS: readonly (readonly [string, (scope: ExportScope) => AsyncIterable<string>])[] = [
  ["groups", groupsJson],
  ["portalSessions", portalSessionsJson],
  ["conversations", conversationsJson],
  ["executions", executionsJson],
  ["approvals", approvalsJson],
  ["creditRequests", creditRequestsJson],
  ["notebookPages", notebookPagesJson],
  ["directoryUsers", directoryUsersJson],
  ["auditEvents", auditEventsJson],
  ["attachments", attachmentsJson],
];

/**
 * The export document as JSON text, written section by section and each long section (the
 * conversations with their messages, executions, audit events…) a page at a time, so a large
 * history is never held whole in memory. The same document as exportEndUser, key for key.
 */
async function* exportDocument(db: Db, organizationId: string, endUser: EndUserDetail): AsyncGenerator<string> {
  yield `{"exportedAt":${JSON.stringify(new Date().toISOString())},"endUser":${JSON.stringify(endUser)}`;
  const scope: ExportScope = { db, organizationId, endUserId: endUser.id, email: endUser.email };
  for (const [key, section] of SECTIONS) {
    yield `,${JSON.stringify(key)}:`;
    yield* section(scope);
  }
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
  async function streamEndUserExport(db: Db, actor: Actor, input: EndUserIdInput): Promise<AsyncGenerator<string>> {
    const endUser = await getEndUser(db, actor, { endUserId: input.endUserId });
    return exportDocument(db, actor.organizationId, endUser);
  },
);

/** The export as one value, for the doors that answer JSON whole (the API's GET, the console). */
export const exportEndUser = guarded(
  { scope: "end_users:read", may: "settings" },
  async function exportEndUser(db: Db, actor: Actor, input: EndUserIdInput): Promise<EndUserExport> {
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
