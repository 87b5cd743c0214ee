// App conversations: one execution per call, billed as src/server/runtime/billed-run.ts says,
// prior turns restored from the conversation, never resent. A conversation of an end user (in a
// portal, or over the API on their behalf) is theirs alone and is billed to their credit pools as well.
import { randomUUID } from "node:crypto";
import { isUuid } from "@/schemas/common";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import { actorLabel } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Citation } from "@/server/runtime/citations";
import { modelFor, type Turn } from "@/server/runtime/models";
import { modelsOfApp } from "@/server/runtime/metering";
import { runApp } from "@/server/runtime/run";
import { isApprovalPause, newRunContext, type RunStep } from "@/server/runtime/run-context";
import { isUniqueViolation, whenDatabaseAnswers } from "@/server/runtime/database-wait";
import type { UploadedFile } from "./attachments";
import { attachmentImages, attachmentPassages, resolveTurnFiles } from "./turn-files";
import { pauseForApproval, type AwaitingApproval, type PausedRun } from "./approval-pause";
import { recordRunUsage } from "./usage-records";
import { conversationTitle, saveTurn } from "./save-turn";
import { appRunFor, chargeAppRun } from "./app-runs";

const HISTORY_TURNS = 20;

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

/**
 * A turn as asked, with every refusal before its run behind it, in the contract's order: the app
 * (not_found, service_disabled), then the end user it is for (not_found), then the conversation
 * (not_found unless it is theirs), then the turn's files. Nothing is charged yet.
 */
async function prepareTurn(db: Db, actor: Actor | EndUserActor, asSent: ConverseInput) {
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
      const models = await Promise.all(
        modelsOfApp(app).map((id) => modelFor(db, actor.organizationId, id, app.providers)),
      );
      return models.some((model) => model.acceptsImages);
    },
  );
  return { appId: input.appId, app, api, runner, existing, turn, message, conversationId, attachments };
}

type PreparedTurn = Awaited<ReturnType<typeof prepareTurn>>;

/** The turn's run context and its charge (402 when the credits do not cover it; nothing runs then). */
async function startTurnRun(db: Db, actor: Actor | EndUserActor, prepared: PreparedTurn, options: ConverseOptions) {
  const { appId, app, runner, existing, message, attachments } = prepared;
  const started = performance.now();
  const ctx = newRunContext(db, actor.organizationId, options.signal);
  ctx.onStep = options.onStep;
  ctx.pausable = true;
  ctx.attachments = attachmentPassages(attachments, message);
  ctx.images = attachmentImages(attachments);
  const { billed, executionId } = await chargeAppRun(
    db,
    ctx,
    actor,
    "conversation",
    { appId, app, runner },
    { conversationId: existing?.conversation.id ?? null, input: message },
  );
  return { ctx, billed, executionId, started };
}

type TurnRun = Awaited<ReturnType<typeof startTurnRun>>;

/** Settles the run's charge and saves the turn (finished, or stopped by its cancel), then counts its usage. */
async function saveEndedTurn(
  db: Db,
  actor: Actor | EndUserActor,
  prepared: PreparedTurn,
  { ctx, billed, executionId, started }: TurnRun,
  reply: string,
  status: "succeeded" | "canceled",
): Promise<void> {
  const { appId, app, runner, existing, turn, message, conversationId, attachments } = prepared;
  const outcome = await billed.settle(status);
  let tried = false;
  await whenDatabaseAnswers("Saving a turn", async () => {
    try {
      await saveTurn(db, actor, runner, {
        conversationId,
        executionId,
        appId,
        versionId: app.versionId,
        message,
        reply,
        citations: ctx.citations.inReply(reply),
        superseded: turn.superseded,
        attachmentIds: attachments.map((attachment) => attachment.id),
        latencyMs: performance.now() - started,
        trace: ctx.trace,
        outcome: { status, credits: outcome.credits, usage: outcome.usage },
      });
    } catch (error) {
      // A retry after a commit whose answer was lost finds the turn saved.
      if (tried && isUniqueViolation(error)) return;
      tried = true;
      throw error;
    }
  });
  await recordRunUsage(db, actor.organizationId, {
    kind: "conversation",
    itemId: appId,
    ...runner,
    ...outcome,
    conversationStarted: !existing,
  });
}

/** What a turn paused at an approval continues from (jobs/approvals.ts). */
function pausedTurnState(actor: Actor | EndUserActor, prepared: PreparedTurn, run: TurnRun): PausedRun["state"] {
  const { appId, app, runner, existing, turn, message, conversationId, attachments } = prepared;
  return {
    kind: "conversation",
    appId,
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
    latencyMs: performance.now() - run.started,
  };
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
    const prepared = await prepareTurn(db, actor, asSent);
    const { appId, app, api, runner, existing, turn, message, conversationId } = prepared;
    const run = await startTurnRun(db, actor, prepared, options);
    const { ctx, billed, executionId, started } = run;
    let partial = "";
    const onDelta = billed.onDelta((text) => {
      partial += text;
      options.onDelta?.(text);
    });
    try {
      await options.onStart?.({ executionId, conversationId, endUserId: runner.endUserId });
      const reply = await runApp(ctx, app, message, turn.history, { onDelta });
      const citations = ctx.citations.inReply(reply);
      await saveEndedTurn(db, actor, prepared, run, reply, "succeeded");
      return { reply, citations, conversation_id: conversationId, execution_id: executionId, greeting: api.greeting };
    } catch (error) {
      if (isApprovalPause(error) && !ctx.cancel?.aborted)
        return pauseForApproval(db, actor, billed, ctx, error, {
          executionId,
          title: conversationTitle(message),
          state: pausedTurnState(actor, prepared, run),
        });
      const failure = await billed.fail(error);
      if (failure.code === "canceled") {
        await saveEndedTurn(db, actor, prepared, run, partial, "canceled");
        throw failure;
      }
      await billed
        .record(actor, {
          id: executionId,
          kind: "conversation",
          itemId: appId,
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
