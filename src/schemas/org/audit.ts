// The audit log: events as GET /audit-events shows them, and its filters.
import { z } from "zod";
import { ListQuery, NextCursor, plainText, Timestamp, TimestampInput, Uuid } from "../common";

export const AUDIT_DOORS = ["console", "api", "mcp", "cli", "portal", "scim", "system"] as const;
export const AUDIT_ACTOR_TYPES = [
  "member",
  "org_key",
  "personal_key",
  "end_user",
  "directory",
  "operator",
  "system",
] as const;

export const AuditEvent = z
  .object({
    id: Uuid,
    occurredAt: Timestamp,
    actor: z.object({ type: z.enum(AUDIT_ACTOR_TYPES), id: z.string().nullable(), label: z.string() }),
    door: z.enum(AUDIT_DOORS),
    action: z.string().meta({ description: "resource.verb, e.g. `end_user.update`" }),
    target: z.object({ type: z.string(), id: z.string().nullable(), label: z.string() }),
    // Two items as a plain array (not a tuple, whose prefixItems/items:false some generators refuse).
    changes: z
      .record(z.string(), z.array(z.unknown()).length(2).meta({ description: "`[before, after]`" }))
      .meta({ description: '`{field: [before, after]}`; secrets only as `"changed"`' }),
    requestId: z.string().nullable().meta({ description: "The X-Request-Id of the request that made the change" }),
    ipAddress: z.string().nullable(),
    userAgent: z.string().nullable(),
    outcome: z.enum(["success", "failure"]),
  })
  .meta({ id: "AuditEvent" });
export type AuditEvent = z.infer<typeof AuditEvent>;

const FilterText = plainText(200).min(1).optional();

/** Filters shared by the list and the export. */
export const AuditFilters = z.strictObject({
  actorId: FilterText,
  action: FilterText.meta({ description: "An action (`end_user.update`) or a resource prefix (`end_user.`)" }),
  targetType: FilterText,
  targetId: FilterText,
  door: z.enum(AUDIT_DOORS).optional(),
  from: TimestampInput.optional().meta({ description: "Events at or after this time" }),
  to: TimestampInput.optional().meta({ description: "Events before this time" }),
});
export type AuditFilters = z.infer<typeof AuditFilters>;

export const ListAuditEventsInput = AuditFilters.extend(ListQuery.shape);
export type ListAuditEventsInput = z.infer<typeof ListAuditEventsInput>;

export const ListAuditEventsOutput = z.object({ auditEvents: z.array(AuditEvent), nextCursor: NextCursor });

/** The list's filters (the console's Export button passes the ones on screen) and the format. */
export const ExportAuditEventsInput = AuditFilters.extend({
  format: z.enum(["jsonl", "csv"]).default("jsonl"),
});
export type ExportAuditEventsInput = z.infer<typeof ExportAuditEventsInput>;

/**
 * The console's reading of an event (console-only, no REST path): the actor, the target and the
 * ids inside `changes` resolved to today's names in the organization, and the event as a sentence.
 */
export const ReadableAuditEvent = z.object({
  ...AuditEvent.shape,
  actor: z.object({
    ...AuditEvent.shape.actor.shape,
    name: z.string(),
    /** A member's role today; null for other actors and for a member who has left. */
    role: z.string().nullable(),
  }),
  target: z.object({ ...AuditEvent.shape.target.shape, name: z.string() }),
  names: z.record(z.string(), z.string()),
  sentence: z.string(),
});
export type ReadableAuditEvent = z.infer<typeof ReadableAuditEvent>;

export const ReadAuditLogOutput = z.object({ auditEvents: z.array(ReadableAuditEvent), nextCursor: NextCursor });

/** What the console's filters offer by name: the people and keys who act, and the items they act on. */
export const AuditFilterOptions = z.object({
  people: z.array(
    z.object({
      id: z.string(),
      type: z.enum(["member", "org_key", "personal_key"]),
      name: z.string(),
      detail: z.string(),
    }),
  ),
  items: z.array(z.object({ id: z.string(), type: z.string(), name: z.string() })),
});
export type AuditFilterOptions = z.infer<typeof AuditFilterOptions>;
