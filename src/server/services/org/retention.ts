// Conversation retention (the contract's "Data rights, retention and members' second factor"):
// an organization that sets conversationRetentionDays has its conversations untouched for longer
// deleted by a daily sweep, once across processes: their messages and citations, their stored
// stream events, and the content of their runs' executions (the message, the reply, the trace and
// the feedback's reason), and their attachments, with files no turn used. What the runs cost
// stays: executions keep their status, credits, latency and tokens, and usage is not touched, so
// totals never change. Each batch records, per organization and in its own transaction, an audit
// event of what it deleted (retention.sweep).
import type { Db } from "@/server/db";
import { recordEvent } from "./events";

/** How often the sweep runs (src/server/jobs/webhook-delivery.ts asks; one process sweeps). */
export const RETENTION_SWEEP_EVERY_MS = 24 * 3_600_000;
const SWEEP_TASK = "conversation_retention_sweep";
/** Conversations deleted per statement: each batch is its own short transaction. */
const BATCH = 500;

export interface RetentionSweep {
  conversations: number;
  executions: number;
  /** Files uploaded for a turn that never used them, past the same retention. */
  attachments: number;
}

/** Files no turn used, older than their organization's retention: a batch at a time. */
async function sweepUnusedAttachments(db: Db): Promise<number> {
  let deleted = 0;
  for (;;) {
    const batch = await db.$executeRaw`
      delete from attachments where id in (
        select a.id from attachments a
        join organizations o on o.id = a.organization_id
        where o.conversation_retention_days is not null and a.conversation_id is null
          and a.created_at < now() - o.conversation_retention_days * interval '1 day'
        limit ${BATCH})`;
    deleted += batch;
    if (batch < BATCH) return deleted;
  }
}

/**
 * The scheduled sweep: the caller that moves the task's next run on (scheduled_tasks, one
 * statement) sweeps; every other process asking meanwhile finds it not due and gets null.
 */
export async function sweepConversationsWhenDue(db: Db, now = new Date()): Promise<RetentionSweep | null> {
  const next = new Date(now.getTime() + RETENTION_SWEEP_EVERY_MS);
  const claimed = await db.$executeRaw`
    insert into scheduled_tasks (name, next_run_at) values (${SWEEP_TASK}, ${next})
    on conflict (name) do update set next_run_at = excluded.next_run_at where scheduled_tasks.next_run_at <= ${now}`;
  if (claimed !== 1) return null;
  return sweepExpiredConversations(db);
}

/** Deletes every organization's conversations past its retention, a batch at a time. */
export async function sweepExpiredConversations(db: Db): Promise<RetentionSweep> {
  const swept: RetentionSweep = { conversations: 0, executions: 0, attachments: 0 };
  for (;;) {
    const batch = await db.$transaction(async (tx) => {
      const expired = await tx.$queryRaw<{ id: string; organization_id: string; days: number }[]>`
        select c.id, c.organization_id, o.conversation_retention_days as days from conversations c
        join organizations o on o.id = c.organization_id
        where o.conversation_retention_days is not null
          and c.updated_at < now() - o.conversation_retention_days * interval '1 day'
        limit ${BATCH}
        for update of c skip locked`;
      if (expired.length === 0) return null;
      const ids = expired.map((row) => row.id);
      const organizations = expired.map((row) => row.organization_id);
      const emptied = await tx.$queryRaw<{ organization_id: string }[]>`
        update executions x set input = '', output = '', trace = '[]'::jsonb, feedback_reason = null
        from unnest(${ids}::uuid[], ${organizations}::uuid[]) as gone(id, organization_id)
        where x.conversation_id = gone.id and x.organization_id = gone.organization_id
        returning x.organization_id`;
      await tx.$executeRaw`delete from conversation_runs where conversation_id = any(${ids}::uuid[])`;
      // Their attachments go with them (a cascade).
      const conversations = await tx.$executeRaw`delete from conversations where id = any(${ids}::uuid[])`;
      const byOrganization = new Map<string, typeof expired>();
      for (const row of expired)
        byOrganization.set(row.organization_id, [...(byOrganization.get(row.organization_id) ?? []), row]);
      for (const [organizationId, gone] of byOrganization) {
        await recordEvent(
          tx,
          { kind: "system", organizationId },
          {
            action: "retention.sweep",
            target: {
              type: "organization",
              id: organizationId,
              label: `Conversations older than ${gone[0]!.days} days`,
            },
            changes: {
              deletedConversations: [null, gone.map((row) => row.id)],
              emptiedExecutions: [null, emptied.filter((row) => row.organization_id === organizationId).length],
            },
          },
        );
      }
      return { conversations, executions: emptied.length, full: expired.length === BATCH };
    });
    if (!batch) {
      swept.attachments = await sweepUnusedAttachments(db);
      return swept;
    }
    swept.conversations += batch.conversations;
    swept.executions += batch.executions;
    if (!batch.full) {
      swept.attachments = await sweepUnusedAttachments(db);
      return swept;
    }
  }
}
