// Executions: every run, with its latency, credits and the trace of what each member and node did.
import type { z } from "zod";
import {
  FAILURE_STATUSES,
  type Execution,
  type ExecutionStatus,
  type ExecutionUsage,
  type ListExecutionsInput,
} from "@/schemas/runs/runtime";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import { actorLabel } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import { logUnsuccessfulRun } from "@/server/observability/operator-log";
import type { TraceEntry } from "@/server/runtime/run-context";
import { recordEvent, type EventActor, type SystemActor } from "../org/events";
import { builderItemNames } from "../support/item-names";
import { recordRunUsage } from "./usage-records";
import { afterCursor, beforeCursor, CURSOR_ORDER, NEWEST_FIRST, toPage } from "../support/pagination";

export interface ExecutionRecord {
  /** Given when the run had its id before it ended: its lease's (runtime/run-leases.ts), a stream's `run` event. */
  id?: string;
  kind: "conversation" | "transaction" | "test";
  itemId: string;
  itemKind: "agent" | "flow" | "app";
  versionId: string | null;
  conversationId?: string | null;
  status: ExecutionStatus;
  credits: number;
  latencyMs: number;
  input: string;
  output: string;
  error?: string | null;
  trace: TraceEntry[];
  /** The run's model calls and their tokens (runtime/metering.ts). */
  usage?: ExecutionUsage;
  /** The end user the run was for, and the portal it ran in. */
  endUserId?: string | null;
  portalId?: string | null;
}

type ExecutionRow = Prisma.ExecutionGetPayload<object>;

/**
 * Who a run's record names: the caller, or (a run continued in the background after an approval,
 * services/runs/approvals.ts) the installation, with the label of the caller who started it.
 */
export type RunActor = Actor | EndUserActor | (SystemActor & { label: string });

export function runActorLabel(actor: RunActor): string {
  return actor.kind === "system" ? actor.label : actorLabel(actor);
}

/** The run's record and its usage (the pool that paid, when an end user's did, names the plan). */
export async function recordExecution(
  db: Db,
  actor: RunActor,
  { subscriptionId, ...record }: ExecutionRecord & { subscriptionId?: string | null },
) {
  const write = (tx: Tx) => writeExecution(tx, actor, runActorLabel(actor), record);
  // A leased run's lease (runtime/run-leases.ts) ends with its record, so it is never also settled
  // as lost; one settled as lost meanwhile was recorded by that settlement, which stands.
  let settledAsLost: Awaited<ReturnType<typeof write>> | null = null;
  const execution =
    record.status === "failed" || record.id
      ? await db.$transaction(async (tx) => {
          if (record.id && (await tx.$executeRaw`delete from run_leases where id = ${record.id}::uuid`) === 0) {
            settledAsLost = await tx.execution.findFirst({
              where: { id: record.id, organizationId: actor.organizationId, status: { not: "awaiting_approval" } },
            });
            if (settledAsLost) return settledAsLost;
          }
          return write(tx);
        })
      : await write(db);
  if (settledAsLost) return execution;
  if (record.status !== "succeeded") {
    logUnsuccessfulRun({
      organizationId: actor.organizationId,
      executionId: execution.id,
      kind: record.kind,
      itemId: record.itemId,
      status: record.status,
      error: record.error,
    });
  }
  await recordRunUsage(db, actor.organizationId, { ...record, subscriptionId, at: execution.createdAt });
  return execution;
}

type Tx = Pick<Db, "execution" | "builderItem" | "endUser" | "portal" | "$executeRaw">;

/**
 * The execution's row; a failed run is announced (execution.failed) with the execution as the REST
 * API shows it. A run that waited for an approval already has its row (`awaiting_approval`): its
 * end updates it and is announced as execution.completed.
 */
async function writeExecution(tx: Tx, actor: EventActor, label: string, record: ExecutionRecord) {
  const data = {
    ...record,
    latencyMs: Math.round(record.latencyMs),
    organizationId: actor.organizationId,
    actor: label,
    trace: record.trace as unknown as Prisma.InputJsonValue,
    usage: record.usage as unknown as Prisma.InputJsonValue | undefined,
  };
  const awaited = record.id
    ? await tx.execution.updateMany({
        where: { id: record.id, organizationId: actor.organizationId, status: "awaiting_approval" },
        data: { ...data, id: undefined, actor: undefined, input: undefined },
      })
    : { count: 0 };
  const row =
    awaited.count === 1
      ? await tx.execution.findFirstOrThrow({ where: { id: record.id, organizationId: actor.organizationId } })
      : await tx.execution.create({ data });
  if (awaited.count === 1) await announceCompleted(tx, actor, row);
  if (record.status === "failed") {
    const [shown] = await toExecutions(tx, actor.organizationId, [row]);
    await recordEvent(tx, actor, {
      action: "execution.failed",
      target: { type: "execution", id: row.id, label: shown!.itemName ?? row.kind },
      // As the REST API shows it: without the organization.
      data: { ...shown, organizationId: undefined },
    });
  }
  return row;
}

/** The end of a run that waited for an approval: execution.completed, with the execution as the REST API shows it. */
export async function announceCompleted(
  tx: Pick<Db, "builderItem" | "endUser" | "portal" | "$executeRaw">,
  actor: EventActor,
  row: ExecutionRow,
) {
  const [shown] = await toExecutions(tx, actor.organizationId, [row]);
  await recordEvent(tx, actor, {
    action: "execution.complete",
    target: { type: "execution", id: row.id, label: shown!.itemName ?? row.kind },
    data: { ...shown, organizationId: undefined },
  });
}

/**
 * The execution of a run lost with its process, written in the transaction that settles it
 * (runtime/run-leases.ts); its `usage` is null (its calls died with the process).
 */
export function recordLostExecution(tx: Tx, organizationId: string, label: string, record: ExecutionRecord) {
  return writeExecution(tx, { kind: "system", organizationId }, label, record);
}

/** Rows with the name of their item, the email of their end user and the name of their portal. */
export async function toExecutions(
  db: Pick<Db, "builderItem" | "endUser" | "portal">,
  organizationId: string,
  rows: ExecutionRow[],
): Promise<Execution[]> {
  const endUserIds = [...new Set(rows.flatMap((row) => (row.endUserId ? [row.endUserId] : [])))];
  const portalIds = [...new Set(rows.flatMap((row) => (row.portalId ? [row.portalId] : [])))];
  const [itemNames, endUsers, portals] = await Promise.all([
    builderItemNames(
      db,
      organizationId,
      rows.map((row) => row.itemId),
    ),
    endUserIds.length
      ? db.endUser.findMany({ where: { organizationId, id: { in: endUserIds } }, select: { id: true, email: true } })
      : [],
    portalIds.length
      ? db.portal.findMany({ where: { organizationId, id: { in: portalIds } }, select: { id: true, name: true } })
      : [],
  ]);
  const emails = new Map(endUsers.map((endUser) => [endUser.id, endUser.email]));
  const names = new Map(portals.map((portal) => [portal.id, portal.name]));
  return rows.map(({ feedbackRating, feedbackReason, feedbackAt, ...row }) => ({
    ...row,
    feedback:
      feedbackRating && feedbackAt
        ? { rating: feedbackRating as "up" | "down", reason: feedbackReason, at: feedbackAt.toISOString() }
        : null,
    itemName: itemNames.get(row.itemId) ?? null,
    trace: row.trace as Execution["trace"],
    usage: row.usage as Execution["usage"],
    endUserEmail: row.endUserId ? (emails.get(row.endUserId) ?? null) : null,
    portalName: row.portalId ? (names.get(row.portalId) ?? null) : null,
    createdAt: row.createdAt.toISOString(),
  }));
}

export const listExecutions = guarded(
  { scope: "apps:read" },
  async function listExecutions(db: Db, actor: Actor, input: z.infer<typeof ListExecutionsInput>) {
    const newest = input.order === "newest";
    const rows = await db.execution.findMany({
      where: {
        organizationId: actor.organizationId,
        ...(input.itemId ? { itemId: input.itemId } : {}),
        ...(input.endUserId ? { endUserId: input.endUserId } : {}),
        ...(input.portalId ? { portalId: input.portalId } : {}),
        ...(input.status ? { status: input.status } : {}),
        ...(input.outcome === "failure" ? { AND: [{ status: { in: [...FAILURE_STATUSES] } }] } : {}),
        ...(input.feedback ? { feedbackRating: input.feedback } : {}),
        ...(newest ? beforeCursor(input.cursor) : afterCursor(input.cursor)),
      },
      orderBy: newest ? NEWEST_FIRST : CURSOR_ORDER,
      take: input.limit + 1,
    });
    const page = toPage(rows, input.limit);
    return { executions: await toExecutions(db, actor.organizationId, page.items), nextCursor: page.nextCursor };
  },
);

/** One execution of the organization, or null: for doors that checked the caller otherwise (a run's cancel). */
export async function findExecution(db: Db, organizationId: string, executionId: string): Promise<Execution | null> {
  const row = await db.execution.findFirst({ where: { id: executionId, organizationId } });
  return row ? (await toExecutions(db, organizationId, [row]))[0]! : null;
}

export const getExecution = guarded(
  { scope: "apps:read" },
  async function getExecution(db: Db, actor: Actor, input: { executionId: string }): Promise<Execution> {
    const row = await db.execution.findFirst({
      where: { id: input.executionId, organizationId: actor.organizationId },
    });
    if (!row) throw new AppError("not_found", "No execution with that id.");
    return (await toExecutions(db, actor.organizationId, [row]))[0]!;
  },
);
