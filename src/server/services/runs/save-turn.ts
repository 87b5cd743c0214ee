// A conversation turn's writes, for converse and for a run continued after its approval
// (jobs/approvals.ts): the conversation, the execution, the two messages and the user's files.
import type { ExecutionUsage } from "@/schemas/runs/runtime";
import type { Db } from "@/server/db";
import type { Citation } from "@/server/runtime/citations";
import type { RunFor } from "../portal/portal-access";
import { runActorLabel, type RunActor } from "./executions";

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
