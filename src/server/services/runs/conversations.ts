// App conversations: one execution per call, billed as src/server/runtime/billed-run.ts says,
// prior turns restored from the conversation, never resent. A conversation of an end user (in a
// portal, or over the API on their behalf) is theirs alone and is billed to their credit pools as well.
import { randomUUID } from "node:crypto";
import { isUuid } from "@/schemas/common";
import type { ExecutionUsage } from "@/schemas/runs/runtime";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import { actorLabel } from "@/server/auth/actor";
import { authorize, type Requirement } from "@/server/auth/authorize";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { BilledRun, RUN_CREDITS } from "@/server/runtime/billed-run";
import { loadLiveApp } from "@/server/runtime/load";
import type { Citation } from "@/server/runtime/citations";
import { modelFor, type Turn } from "@/server/runtime/models";
import { modelsOfApp } from "@/server/runtime/metering";
import { isApprovalPause, newRunContext, runApp, type RunStep } from "@/server/runtime/run";
import { isUniqueViolation, whenDatabaseAnswers } from "@/server/runtime/database-wait";
import { attachmentImages, attachmentPassages, resolveTurnFiles, type UploadedFile } from "./attachments";
import { recordEvent } from "../org/events";
import { pauseForApproval, type AwaitingApproval } from "./approvals";
import { runActorLabel, type RunActor } from "./executions";
import { builderItemNames } from "../support/item-names";
import { decodeCursor, encodeCursor } from "../support/pagination";
import { conversationStarters, runFor, type RunFor } from "../portal/portal-access";
import { recordRunUsage } from "./usage";

export const CONVERSATION_CREDITS = RUN_CREDITS.conversation;
/** Running a version other than the live one (`version` on a conversation or transaction) is a builder's call. */
export const PINNED_VERSION: Requirement = { scope: "apps:write" };
const HISTORY_TURNS = 20;

const RUN_TURNED_OFF = {
  conversation:
    "Conversation is turned off in this app's published API config; republish it with conversation enabled.",
  transaction: "Transaction is turned off in this app's published API config; republish it with transactions enabled.",
} as const;

/**
 * The first refusals of a run, in the contract's order: a pinned version is a builder's call,
 * then the app as published (not_found), whether its published API allows this kind of run
 * (service_disabled), then whom the run is for (runFor).
 */
export async function appRunFor(
  db: Db,
  actor: Actor | EndUserActor,
  kind: keyof typeof RUN_TURNED_OFF,
  input: { appId: string; version?: string; endUserId?: string; portalId?: string },
) {
  if (input.version !== undefined) authorize(actor, PINNED_VERSION);
  const app = await loadLiveApp(db, actor, input.appId, input.version);
  const api = app.app.document.api;
  if (!(kind === "conversation" ? api.conversationEnabled : api.transactionEnabled))
    throw new AppError("service_disabled", RUN_TURNED_OFF[kind]);
  const runner = await runFor(db, actor, input.appId, input);
  return { app, api, runner };
}

export interface ConverseInput {
  appId: string;
  /** The turn's text; with `regenerate`, it replaces the last user message (edit and resend), else that message is asked again. */
  message?: string;
  conversationId?: string;
  /** Runs the conversation's last user message again and hides the exchange it replaces. */
  regenerate?: boolean;
  /** Over the API: the end user the call is made for, and the portal it counts as (optional). */
  endUserId?: string;
  portalId?: string;
  /** A version of the app to run instead of the live one (needs `apps:write` as well). */
  version?: string;
  /** Files uploaded before (POST /files) that this turn attaches. */
  fileIds?: string[];
  /** Files the turn carries itself (a multipart turn): stored, then attached. */
  files?: UploadedFile[];
}

export interface ConverseResult {
  reply: string;
  /** The passages the reply cites as `[n]`. */
  citations: Citation[];
  conversation_id: string;
  execution_id: string;
  greeting: string;
}

/** A run that has started: every refusal is behind it. */
export interface StartedRun {
  executionId: string;
  conversationId: string;
  /** The end user the run is for, if any. */
  endUserId: string | null;
}

export interface ConverseOptions {
  /** Aborted by the run's cancel endpoint (services/runs/conversation-runs.ts): the run ends `canceled`, billed. */
  signal?: AbortSignal;
  /** Each piece of the reply as it is produced (Server-Sent Events). */
  onDelta?: (text: string) => void;
  /** Awaited once the run starts, before anything runs: a stream can open and name the run. */
  onStart?: (run: StartedRun) => Promise<void> | void;
  /** Each app member starting and ending (Server-Sent Events' `step`). */
  onStep?: (step: RunStep) => void;
}

/**
 * The conversation (the app's, and the end user's or the organization's own as the turn is) with
 * its last HISTORY_TURNS turns, oldest first, in one statement: no row when there is no such one.
 */
const HISTORY_SQL = `
  select c.id, m.id as message_id, m.role, m.content
  from conversations c
  left join lateral (
    select role, content, created_at, id from conversation_messages
    where conversation_id = c.id and superseded_at is null
    order by created_at desc, id desc
    limit $5
  ) m on true
  where c.id = $1 and c.organization_id = $2 and c.app_id = $3 and c.end_user_id is not distinct from $4::uuid and c.hidden_at is null
  order by m.created_at, m.id`;

async function findConversation(
  db: Db,
  organizationId: string,
  appId: string,
  conversationId: string,
  endUserId: string | null,
) {
  const notFound = () => new AppError("not_found", "No conversation with that id for this app.");
  if (!isUuid(conversationId)) throw notFound();
  const { rows } = await db.pool.query<{
    id: string;
    message_id: string | null;
    role: Turn["role"] | null;
    content: string | null;
  }>({
    name: "atrium_conversation_history",
    text: HISTORY_SQL,
    values: [conversationId, organizationId, appId, endUserId, HISTORY_TURNS * 2],
  });
  if (rows.length === 0) throw notFound();
  const messages = rows.flatMap((m) =>
    m.message_id === null || m.role === null || m.content === null
      ? []
      : [{ id: m.message_id, role: m.role, content: m.content }],
  );
  return {
    conversation: { id: rows[0]!.id },
    messages,
    history: messages.map((m): Turn => ({ role: m.role, content: m.content })),
  };
}

/**
 * A regenerated turn: the conversation's last user message (or the text that replaces it), the
 * history before it, the messages of the exchange it replaces (hidden once the new one is saved),
 * and the user message among them, whose files the turn keeps.
 */
function regeneratedTurn(existing: Awaited<ReturnType<typeof findConversation>>, message: string | undefined) {
  const last = existing.messages.map((m) => m.role).lastIndexOf("user");
  if (last < 0) throw new AppError("invalid_request", "This conversation has no message to regenerate.");
  return {
    message: message ?? existing.messages[last]!.content,
    history: existing.history.slice(0, last),
    superseded: existing.messages.slice(last).map((m) => m.id),
    replacedMessageId: existing.messages[last]!.id,
  };
}

const TITLE_CHARS = 80;

/** A conversation's title from its first question: its first sentence, at most TITLE_CHARS, cut at a word. */
export function conversationTitle(message: string): string {
  const text = message.replace(/\s+/g, " ").trim();
  let end = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if (".?!".includes(text[i]!) && text[i + 1] === " ") {
      end = i + 1;
      break;
    }
  }
  const sentence = text.slice(0, end);
  if (sentence.length <= TITLE_CHARS) return sentence;
  const cut = sentence.slice(0, TITLE_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

/**
 * The turn's writes in one statement: the conversation (created on its first turn), the
 * execution with its trace (its run's lease ends with it, runtime/run-leases.ts), the two messages and the
 * user message's attachments. A stopped turn is saved too, with the answer
 * as far as it got, as chat apps keep it.
 */
const SAVE_TURN_SQL = `
  with superseded as (
    update conversation_messages set superseded_at = now() where id = any($15::uuid[]) and conversation_id = $1
  ),
  conversation as (
    insert into conversations (id, organization_id, app_id, started_by, end_user_id, portal_id, title, created_at, updated_at)
    values ($1, $2, $3, $4, $12, $13, $16, now(), now())
    on conflict (id) do update set updated_at = now()
    returning id
  ),
  released as (
    delete from run_leases where id = $11
  ),
  execution as (
    insert into executions (id, organization_id, kind, item_id, item_kind, version_id, conversation_id, status, credits, latency_ms, input, output, trace, actor, end_user_id, portal_id, created_at, usage)
    select $11, $2, 'conversation', $3, 'app', $6, conversation.id, $17, $7, $8, $5, $9, $10::jsonb, $4, $12, $13, now(), $18::jsonb from conversation
    on conflict (id) do update set status = excluded.status, credits = excluded.credits, latency_ms = excluded.latency_ms,
      output = excluded.output, trace = excluded.trace, usage = excluded.usage
      where executions.status = 'awaiting_approval' and executions.organization_id = excluded.organization_id
    returning id
  ),
  messages as (
    insert into conversation_messages (id, conversation_id, role, content, execution_id, citations, created_at)
    select gen_random_uuid(), conversation.id, turn.role, turn.content, case when turn.role = 'assistant' then execution.id end,
      case when turn.role = 'assistant' then $14::jsonb else '[]'::jsonb end, now() + turn.nth * interval '1 millisecond'
    from conversation, execution, (values ('user', $5, 0), ('assistant', $9, 1)) as turn(role, content, nth)
    returning id, role
  )
  update attachments set conversation_id = $1, message_id = (select id from messages where role = 'user')
  where id = any($19::uuid[]) and organization_id = $2`;

export async function saveTurn(
  db: Db,
  actor: RunActor,
  runner: Pick<RunFor, "endUserId" | "portalId">,
  turn: {
    conversationId: string;
    executionId: string;
    appId: string;
    versionId: string;
    message: string;
    reply: string;
    citations: Citation[];
    /** The messages of the exchange a regenerated turn replaces. */
    superseded: string[];
    /** The files the turn's user message carries. */
    attachmentIds?: string[];
    latencyMs: number;
    trace: unknown;
    /** How the run ended and what it cost: a finished turn, or one stopped by its cancel. */
    outcome: { status: "succeeded" | "canceled"; credits: number; usage: ExecutionUsage };
  },
): Promise<void> {
  await db.pool.query({
    name: "atrium_save_turn",
    text: SAVE_TURN_SQL,
    values: [
      turn.conversationId,
      actor.organizationId,
      turn.appId,
      runActorLabel(actor),
      turn.message,
      turn.versionId,
      turn.outcome.credits,
      Math.round(turn.latencyMs),
      turn.reply,
      JSON.stringify(turn.trace),
      turn.executionId,
      runner.endUserId,
      runner.portalId,
      JSON.stringify(turn.citations),
      turn.superseded,
      conversationTitle(turn.message),
      turn.outcome.status,
      JSON.stringify(turn.outcome.usage),
      turn.attachmentIds ?? [],
    ],
  });
}

/**
 * One turn. Refusals in the contract's order: the app (not_found, service_disabled), then the
 * end user it is for (not_found), then the conversation (not_found unless it is theirs), then
 * credits (402); nothing runs or is charged after a refusal.
 */
export const converse = guarded(
  { scope: "apps:execute", endUsers: true },
  async function converse(
    db: Db,
    actor: Actor | EndUserActor,
    asSent: ConverseInput,
    options: ConverseOptions = {},
  ): Promise<ConverseResult | AwaitingApproval> {
    // Doors hand over the app id as the client wrote it (the portal's path, an MCP argument):
    // one that cannot be an id is no app, before anything is read; an uppercase one is the app.
    if (!isUuid(asSent.appId)) throw new AppError("not_found", "No app with that id.");
    const input = { ...asSent, appId: asSent.appId.toLowerCase() };
    // A continuing conversation is read beside the app, for the end user runFor answers for; its
    // not_found still comes after the app's and the end user's refusals.
    const conversation = input.conversationId
      ? findConversation(
          db,
          actor.organizationId,
          input.appId,
          input.conversationId,
          actor.kind === "end_user" ? actor.endUser.id : (input.endUserId ?? null),
        )
      : null;
    conversation?.catch(() => {});
    const { app, api, runner } = await appRunFor(db, actor, "conversation", input);
    const existing = conversation ? await conversation : null;
    const turn =
      input.regenerate && existing
        ? regeneratedTurn(existing, input.message)
        : { message: input.message, history: existing?.history ?? [], superseded: [], replacedMessageId: undefined };
    if (turn.message === undefined) throw new AppError("invalid_request", "A message is required.");
    const message = turn.message;
    // Named before the run, so a stream's first event tells the client what to resume.
    const conversationId = existing?.conversation.id ?? randomUUID();
    // The turn's files, refused (not found, an image no model of the app reads) before anything runs.
    const attachments = await resolveTurnFiles(
      db,
      actor,
      runner.endUserId,
      conversationId,
      { keptFrom: turn.replacedMessageId, fileIds: input.fileIds, files: input.files },
      async () => {
        const models = await Promise.all(modelsOfApp(app).map((id) => modelFor(db, actor.organizationId, id)));
        return models.some((model) => model.acceptsImages);
      },
    );

    const started = performance.now();
    const ctx = newRunContext(db, actor.organizationId, options.signal);
    ctx.onStep = options.onStep;
    ctx.pausable = true;
    ctx.attachments = attachmentPassages(attachments, message);
    ctx.images = attachmentImages(attachments);
    const executionId = randomUUID();
    const billed = await BilledRun.start(
      db,
      ctx,
      {
        organizationId: actor.organizationId,
        endUserId: runner.endUserId,
        usage: { appId: input.appId, portalId: runner.portalId },
      },
      CONVERSATION_CREDITS,
      {
        id: executionId,
        kind: "conversation",
        itemId: input.appId,
        itemKind: "app",
        versionId: app.versionId,
        conversationId: existing?.conversation.id ?? null,
        input: message,
        endUserId: runner.endUserId,
        portalId: runner.portalId,
        actor: actorLabel(actor),
      },
      modelsOfApp(app),
    );
    let partial = "";
    const onDelta = billed.onDelta((text) => {
      partial += text;
      options.onDelta?.(text);
    });
    const save = async (reply: string, status: "succeeded" | "canceled") => {
      const outcome = await billed.settle(status);
      let tried = false;
      await whenDatabaseAnswers("Saving a turn", async () => {
        try {
          await saveTurn(db, actor, runner, turnOf(reply, status, outcome));
        } catch (error) {
          // A retry after a commit whose answer was lost finds the turn saved.
          if (tried && isUniqueViolation(error)) return;
          tried = true;
          throw error;
        }
      });
      await recordRunUsage(db, actor.organizationId, {
        kind: "conversation",
        itemId: input.appId,
        ...runner,
        ...outcome,
        conversationStarted: !existing,
      });
    };
    const turnOf = (
      reply: string,
      status: "succeeded" | "canceled",
      { credits, usage }: { credits: number; usage: ExecutionUsage },
    ) => ({
      conversationId,
      executionId,
      appId: input.appId,
      versionId: app.versionId,
      message,
      reply,
      citations: ctx.citations.inReply(reply),
      superseded: turn.superseded,
      attachmentIds: attachments.map((attachment) => attachment.id),
      latencyMs: performance.now() - started,
      trace: ctx.trace,
      outcome: { status, credits, usage },
    });
    try {
      await options.onStart?.({ executionId, conversationId, endUserId: runner.endUserId });
      const reply = await runApp(ctx, app, message, turn.history, { onDelta });
      const citations = ctx.citations.inReply(reply);
      await save(reply, "succeeded");
      return { reply, citations, conversation_id: conversationId, execution_id: executionId, greeting: api.greeting };
    } catch (error) {
      if (isApprovalPause(error) && !ctx.cancel?.aborted)
        return pauseForApproval(db, actor, billed, ctx, error, {
          executionId,
          title: conversationTitle(message),
          state: {
            kind: "conversation",
            appId: input.appId,
            versionId: app.versionId,
            actor: actorLabel(actor),
            message,
            history: turn.history,
            input: message,
            conversationId,
            conversationStarted: !existing,
            superseded: turn.superseded,
            attachmentIds: attachments.map((attachment) => attachment.id),
            endUserId: runner.endUserId,
            portalId: runner.portalId,
            latencyMs: performance.now() - started,
          },
        });
      const failure = await billed.fail(error);
      if (failure.code === "canceled") {
        await save(partial, "canceled");
        throw failure;
      }
      await billed
        .record(actor, {
          id: executionId,
          kind: "conversation",
          itemId: input.appId,
          itemKind: "app",
          versionId: app.versionId,
          conversationId: existing?.conversation.id ?? null,
          latencyMs: performance.now() - started,
          input: message,
          output: "",
          trace: ctx.trace,
          endUserId: runner.endUserId,
          portalId: runner.portalId,
        })
        .catch(() => {});
      throw failure;
    } finally {
      // Whatever this process could not record, the sweeper settles (runtime/run-leases.ts).
      billed.ended();
    }
  },
);

const CONVERSATION_LIST_LIMIT = 50;

/** The organization's conversations with one app, most recently active first (the console chat). */
export const listConversations = guarded(
  { scope: "apps:read" },
  async function listConversations(db: Db, actor: Actor, input: { appId: string }) {
    const rows = await db.conversation.findMany({
      where: { organizationId: actor.organizationId, appId: input.appId, endUserId: null },
      orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
      take: CONVERSATION_LIST_LIMIT,
    });
    return {
      conversations: rows.map((row) => ({
        id: row.id,
        title: row.title,
        startedBy: row.startedBy,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
      })),
    };
  },
);

/** The conversation starters the console chat offers for an app: those the portal offers (its live version's agents'). */
export const getConversationStarters = guarded(
  { scope: "apps:read" },
  async function getConversationStarters(
    db: Db,
    actor: Actor,
    input: { appId: string },
  ): Promise<{
    conversationStarters: string[];
  }> {
    const item = await db.builderItem.findFirst({
      where: { id: input.appId, organizationId: actor.organizationId, kind: "app" },
      select: { productionVersionId: true },
    });
    if (!item?.productionVersionId) throw new AppError("not_found", "No published app with that id.");
    const versions = await db.builderVersion.findMany({
      where: { organizationId: actor.organizationId, id: item.productionVersionId },
      select: { itemId: true, pins: true },
    });
    return {
      conversationStarters: (await conversationStarters(db, actor.organizationId, versions)).get(input.appId) ?? [],
    };
  },
);

/** One conversation's messages in order; an assistant message names the execution that produced it. */
export const getConversationMessages = guarded(
  { scope: "apps:read" },
  async function getConversationMessages(db: Db, actor: Actor, input: { conversationId: string }) {
    const conversation = await db.conversation.findFirst({
      where: { id: input.conversationId, organizationId: actor.organizationId, endUserId: null },
    });
    if (!conversation) throw new AppError("not_found", "No conversation with that id.");
    const [messages, files] = await Promise.all([
      db.conversationMessage.findMany({
        where: {
          conversationId: conversation.id,
          conversation: { organizationId: actor.organizationId },
          supersededAt: null,
        },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      }),
      messageAttachments(db, actor.organizationId, conversation.id),
    ]);
    return {
      conversation: { id: conversation.id, appId: conversation.appId, title: conversation.title },
      messages: messages.map((m) => ({
        id: m.id,
        role: m.role as "user" | "assistant",
        content: m.content,
        executionId: m.executionId,
        citations: citationsOf(m.citations),
        attachments: files.get(m.id) ?? [],
        createdAt: m.createdAt.toISOString(),
      })),
    };
  },
);

/** The files each message of a conversation carried, by message id. */
async function messageAttachments(db: Db, organizationId: string, conversationId: string) {
  const rows = await db.attachment.findMany({
    where: { organizationId, conversationId, messageId: { not: null } },
    select: { id: true, messageId: true, name: true, format: true, sizeBytes: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const byMessage = new Map<string, { id: string; name: string; format: string; sizeBytes: number }[]>();
  for (const { messageId, ...file } of rows) byMessage.set(messageId!, [...(byMessage.get(messageId!) ?? []), file]);
  return byMessage;
}

/** A stored message's citations (a JSON column the run wrote). */
function citationsOf(stored: unknown): Citation[] {
  return Array.isArray(stored) ? (stored as Citation[]) : [];
}

// ---- An end user's own conversations (the portal) ----

/** The end user's conversations, most recently active first; never anyone else's. */
export async function listEndUserConversations(
  db: Db,
  actor: EndUserActor,
  input: { limit: number; cursor?: string; q?: string; appId?: string },
) {
  // The cursor pairs (updatedAt, id) of the last conversation handed out.
  const cursor = input.cursor ? decodeCursor(input.cursor) : null;
  // `contains` is ILIKE with the text's wildcards escaped: no pattern from the end user runs.
  const q = input.q?.trim();
  const matching = q
    ? {
        OR: [
          { title: { contains: q, mode: "insensitive" as const } },
          { messages: { some: { supersededAt: null, content: { contains: q, mode: "insensitive" as const } } } },
        ],
      }
    : {};
  const rows = await db.conversation.findMany({
    where: {
      organizationId: actor.organizationId,
      endUserId: actor.endUser.id,
      hiddenAt: null,
      ...(input.appId ? { appId: input.appId } : {}),
      ...matching,
      ...(cursor
        ? { OR: [{ updatedAt: { lt: cursor.createdAt } }, { updatedAt: cursor.createdAt, id: { lt: cursor.id } }] }
        : {}),
    },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  const names = await builderItemNames(
    db,
    actor.organizationId,
    page.map((row) => row.appId),
  );
  return {
    conversations: page.map((row) => ({
      id: row.id,
      appId: row.appId,
      appName: names.get(row.appId) ?? "",
      title: row.title,
      updatedAt: row.updatedAt.toISOString(),
    })),
    nextCursor: rows.length > input.limit && last ? encodeCursor({ createdAt: last.updatedAt, id: last.id }) : null,
  };
}

/** The end user's own conversation, not deleted by them; anyone else's answers not_found. */
async function ownConversation(db: Db, actor: EndUserActor, conversationId: string) {
  const conversation = isUuid(conversationId)
    ? await db.conversation.findFirst({
        where: {
          id: conversationId,
          organizationId: actor.organizationId,
          endUserId: actor.endUser.id,
          hiddenAt: null,
        },
      })
    : null;
  if (!conversation) throw new AppError("not_found", "No conversation with that id.");
  return conversation;
}

/** Renames one of the end user's conversations. */
export async function renameEndUserConversation(
  db: Db,
  actor: EndUserActor,
  input: { conversationId: string; title: string },
) {
  const conversation = await ownConversation(db, actor, input.conversationId);
  const title = input.title.trim();
  const [updated] = await db.$transaction([
    db.conversation.update({ where: { id: conversation.id, organizationId: actor.organizationId }, data: { title } }),
    recordEvent(db, actor, {
      action: "conversation.rename",
      target: { type: "conversation", id: conversation.id, label: title },
      changes: { title: [conversation.title, title] },
    }),
  ]);
  const names = await builderItemNames(db, actor.organizationId, [updated.appId]);
  return {
    conversation: {
      id: updated.id,
      appId: updated.appId,
      appName: names.get(updated.appId) ?? "",
      title: updated.title,
      updatedAt: updated.updatedAt.toISOString(),
    },
  };
}

/** Deletes a conversation for its end user only: hidden from them, kept for the organization (executions, console). */
export async function hideEndUserConversation(db: Db, actor: EndUserActor, input: { conversationId: string }) {
  const conversation = await ownConversation(db, actor, input.conversationId);
  await db.$transaction([
    db.conversation.updateMany({
      where: { id: conversation.id, organizationId: actor.organizationId, endUserId: actor.endUser.id },
      data: { hiddenAt: new Date() },
    }),
    recordEvent(db, actor, {
      action: "conversation.hide",
      target: { type: "conversation", id: conversation.id, label: conversation.title },
    }),
  ]);
  return { ok: true as const };
}

/** One of the end user's conversations with its messages; anyone else's answers not_found. */
export async function getEndUserConversation(db: Db, actor: EndUserActor, input: { conversationId: string }) {
  const conversation = await ownConversation(db, actor, input.conversationId);
  const [messages, names, files] = await Promise.all([
    db.conversationMessage.findMany({
      where: { conversationId: conversation.id, supersededAt: null },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    }),
    builderItemNames(db, actor.organizationId, [conversation.appId]),
    messageAttachments(db, actor.organizationId, conversation.id),
  ]);
  // What each answer's run charged: the same integer taken from the end user's pool.
  const runIds = messages.flatMap((m) => (m.role === "assistant" && m.executionId ? [m.executionId] : []));
  const charged = new Map(
    (
      await db.execution.findMany({
        where: { organizationId: actor.organizationId, id: { in: runIds } },
        select: { id: true, credits: true },
      })
    ).map((run) => [run.id, run.credits]),
  );
  return {
    id: conversation.id,
    appId: conversation.appId,
    appName: names.get(conversation.appId) ?? "",
    title: conversation.title,
    messages: messages.map((m) => ({
      id: m.id,
      role: m.role as "user" | "assistant",
      content: m.content,
      citations: citationsOf(m.citations),
      credits: m.role === "assistant" && m.executionId ? (charged.get(m.executionId) ?? null) : null,
      attachments: files.get(m.id) ?? [],
      createdAt: m.createdAt.toISOString(),
    })),
  };
}

// ---- Feedback on a reply ----

export interface MessageFeedbackInput {
  appId?: string;
  messageId: string;
  rating: "up" | "down" | null;
  reason?: string;
}

/**
 * Thumbs up or down on an assistant message, stored on the execution that produced it (null
 * clears it). The message is found by the rule that reads its conversation: an end user's own,
 * not deleted; the organization's for its members and keys. Anything else is not_found.
 */
export const setMessageFeedback = guarded(
  { scope: "apps:execute", endUsers: true },
  async function setMessageFeedback(db: Db, actor: Actor | EndUserActor, input: MessageFeedbackInput) {
    const notFound = new AppError("not_found", "No reply with that id.");
    if (!isUuid(input.messageId) || (input.appId !== undefined && !isUuid(input.appId))) throw notFound;
    const message = await db.conversationMessage.findFirst({
      where: {
        id: input.messageId.toLowerCase(),
        role: "assistant",
        supersededAt: null,
        executionId: { not: null },
        conversation: {
          organizationId: actor.organizationId,
          ...(input.appId ? { appId: input.appId.toLowerCase() } : {}),
          ...(actor.kind === "end_user" ? { endUserId: actor.endUser.id, hiddenAt: null } : {}),
        },
      },
      select: { executionId: true },
    });
    if (!message?.executionId) throw notFound;
    const at = input.rating ? new Date() : null;
    const executionId = message.executionId;
    await db.$transaction(async (tx) => {
      const updated = await tx.execution.updateMany({
        where: { id: executionId, organizationId: actor.organizationId },
        data: {
          feedbackRating: input.rating,
          feedbackReason: input.rating ? (input.reason ?? null) : null,
          feedbackAt: at,
        },
      });
      if (updated.count === 0) throw notFound;
      await recordEvent(tx, actor, {
        action: "execution.feedback",
        target: { type: "execution", id: executionId, label: input.messageId.toLowerCase() },
        changes: { rating: [null, input.rating ?? null] },
      });
    });
    return {
      feedback:
        input.rating && at ? { rating: input.rating, reason: input.reason ?? null, at: at.toISOString() } : null,
    };
  },
);
