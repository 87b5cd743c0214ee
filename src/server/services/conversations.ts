// App conversations: one execution per call, billed 1 credit (taken before the run, given
// back if the run fails upstream or is cancelled before anything ran), prior turns restored
// from the conversation, never resent.
import { randomUUID } from "node:crypto";
import type { Actor } from "@/server/auth/actor";
import { actorLabel } from "@/server/auth/actor";
import { authorize } from "@/server/auth/authorize";
import type { Db } from "@/server/db";
import { AppError, isAppError, toAppError } from "@/server/errors";
import { loadLiveApp } from "@/server/runtime/load";
import type { Turn } from "@/server/runtime/models";
import { newRunContext, runApp } from "@/server/runtime/run";
import { chargeCredits, refundCredits } from "./credits";
import { recordExecution } from "./executions";

export const CONVERSATION_CREDITS = 1;
const HISTORY_TURNS = 20;

export interface ConverseInput {
  appId: string;
  message: string;
  conversationId?: string;
}

export interface ConverseResult {
  reply: string;
  conversation_id: string;
  greeting: string;
}

export interface ConverseOptions {
  signal?: AbortSignal;
  /** Each piece of the reply as it is produced (Server-Sent Events). */
  onDelta?: (text: string) => void;
  /** Called once the run starts (every refusal is behind it): a stream can open. */
  onStart?: () => void;
}

async function findConversation(db: Db, actor: Actor, appId: string, conversationId: string) {
  const conversation = await db.conversation.findFirst({ where: { id: conversationId, organizationId: actor.organizationId, appId } });
  if (!conversation) throw new AppError("not_found", "No conversation with that id for this app.");
  const messages = await db.conversationMessage.findMany({
    where: { conversationId, conversation: { organizationId: actor.organizationId } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: HISTORY_TURNS * 2,
  });
  return { conversation, history: messages.reverse().map((m): Turn => ({ role: m.role as Turn["role"], content: m.content })) };
}

/**
 * The turn's writes in one statement: the conversation (created on its first turn), the
 * execution with its trace, and the two messages.
 */
const SAVE_TURN_SQL = `
  with conversation as (
    insert into conversations (id, organization_id, app_id, started_by, title, created_at, updated_at)
    values ($1, $2, $3, $4, left($5, 120), now(), now())
    on conflict (id) do update set updated_at = now()
    returning id
  ),
  execution as (
    insert into executions (id, organization_id, kind, item_id, item_kind, version_id, conversation_id, status, credits, latency_ms, input, output, trace, actor, created_at)
    select gen_random_uuid(), $2, 'conversation', $3, 'app', $6, conversation.id, 'succeeded', $7, $8, $5, $9, $10::jsonb, $4, now() from conversation
    returning id
  )
  insert into conversation_messages (id, conversation_id, role, content, execution_id, created_at)
  select gen_random_uuid(), conversation.id, turn.role, turn.content, case when turn.role = 'assistant' then execution.id end, now() + turn.nth * interval '1 millisecond'
  from conversation, execution, (values ('user', $5, 0), ('assistant', $9, 1)) as turn(role, content, nth)`;

async function saveTurn(
  db: Db,
  actor: Actor,
  turn: { conversationId: string; appId: string; versionId: string; message: string; reply: string; latencyMs: number; trace: unknown },
): Promise<void> {
  await db.pool.query({
    name: "atrium_save_turn",
    text: SAVE_TURN_SQL,
    values: [turn.conversationId, actor.organizationId, turn.appId, actorLabel(actor), turn.message, turn.versionId, CONVERSATION_CREDITS, Math.round(turn.latencyMs), turn.reply, JSON.stringify(turn.trace)],
  });
}

export async function converse(db: Db, actor: Actor, input: ConverseInput, options: ConverseOptions = {}): Promise<ConverseResult> {
  authorize(actor, { scope: "apps:execute" });
  const app = await loadLiveApp(db, actor, input.appId);
  const api = app.app.document.api;
  if (!api.conversationEnabled) throw new AppError("service_disabled", "Conversation is turned off in this app's published API config; republish it with conversation enabled.");
  const existing = input.conversationId ? await findConversation(db, actor, input.appId, input.conversationId) : null;

  await chargeCredits(db, actor.organizationId, CONVERSATION_CREDITS);
  options.onStart?.();
  const started = performance.now();
  const ctx = newRunContext(db, actor.organizationId, options.signal);
  let producedAnything = false;
  try {
    const reply = await runApp(ctx, app, input.message, existing?.history ?? [], {
      onDelta: (piece) => {
        producedAnything = true;
        options.onDelta?.(piece);
      },
    });
    const conversationId = existing?.conversation.id ?? randomUUID();
    await saveTurn(db, actor, {
      conversationId,
      appId: input.appId,
      versionId: app.versionId,
      message: input.message,
      reply,
      latencyMs: performance.now() - started,
      trace: ctx.trace,
    });
    return { reply, conversation_id: conversationId, greeting: api.greeting };
  } catch (error) {
    const cancelled = options.signal?.aborted === true;
    const failure = toAppError(error);
    // Billed for what ran: a run stopped by its bounds, or a cancel or provider failure after
    // something was produced, keeps the credit; anything else is given back.
    const ran = producedAnything || ctx.trace.length > 0;
    const billed = failure.code === "run_limit_exceeded" || ((cancelled || failure.code === "provider_error") && ran);
    const charged = billed ? CONVERSATION_CREDITS : 0;
    if (charged === 0) await refundCredits(db, actor.organizationId, CONVERSATION_CREDITS);
    await recordExecution(db, actor, {
      kind: "conversation",
      itemId: input.appId,
      itemKind: "app",
      versionId: app.versionId,
      conversationId: existing?.conversation.id ?? null,
      status: cancelled ? "cancelled" : "failed",
      credits: charged,
      latencyMs: performance.now() - started,
      input: input.message,
      output: "",
      error: cancelled ? "The client disconnected." : failure.message,
      trace: ctx.trace,
    }).catch(() => {});
    if (isAppError(error)) throw error;
    throw new AppError("server_error", "The run failed on our side; nothing was charged. It is safe to retry.", {}, { cause: error });
  }
}

const CONVERSATION_LIST_LIMIT = 50;

/** The organization's conversations with one app, most recently active first (the console chat). */
export async function listConversations(db: Db, actor: Actor, input: { appId: string }) {
  authorize(actor, { scope: "apps:read" });
  const rows = await db.conversation.findMany({
    where: { organizationId: actor.organizationId, appId: input.appId },
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
}

/** One conversation's messages in order; an assistant message names the execution that produced it. */
export async function getConversationMessages(db: Db, actor: Actor, input: { conversationId: string }) {
  authorize(actor, { scope: "apps:read" });
  const conversation = await db.conversation.findFirst({ where: { id: input.conversationId, organizationId: actor.organizationId } });
  if (!conversation) throw new AppError("not_found", "No conversation with that id.");
  const messages = await db.conversationMessage.findMany({ where: { conversationId: conversation.id, conversation: { organizationId: actor.organizationId } }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return {
    conversation: { id: conversation.id, appId: conversation.appId, title: conversation.title },
    messages: messages.map((m) => ({
      id: m.id,
      role: m.role as "user" | "assistant",
      content: m.content,
      executionId: m.executionId,
      createdAt: m.createdAt.toISOString(),
    })),
  };
}
