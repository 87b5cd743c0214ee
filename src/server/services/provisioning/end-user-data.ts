// An end user's data rights (the contract's "Data rights, retention and members' second factor"):
// the erasure that deletes their content and replaces their name and address with a tombstone
// everywhere, keeping the numbers (executions' credits and tokens, usage) so the organization's
// totals never move. The export of everything held about them is end-user-export.ts.
//
// DATA_RIGHTS_COVERAGE names, for every table that references an end user or holds what they
// wrote, what the export takes from it and what the erasure does to it;
// tests/provisioning/data-rights.test.ts walks the Prisma schema and fails on a model that
// references an end user and is missing here, so a new table cannot be forgotten.
import type { EraseEndUserOutput } from "@/schemas/provisioning/end-user-data";
import type { EndUserIdInput } from "@/schemas/provisioning/provisioning";
import type { Actor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { guarded } from "@/server/auth/guarded";
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

/**
 * Erases an end user in one transaction. Idempotent: erasing an erased end user answers when it
 * was erased and changes nothing. Their address is unknown afterwards, so provisioning it again
 * creates a new end user.
 */
export const eraseEndUser = guarded(
  { scope: "end_users:write", may: "delete" },
  async function eraseEndUser(db: Db, actor: Actor, input: EndUserIdInput): Promise<EraseEndUserOutput> {
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
