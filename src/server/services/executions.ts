// Executions: every run, with its latency, credits and the trace of what each member and node did.
import type { Execution } from "@/schemas/runtime";
import type { Actor } from "@/server/auth/actor";
import { actorLabel } from "@/server/auth/actor";
import { authorize } from "@/server/auth/authorize";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import type { TraceEntry } from "@/server/runtime/run";
import { afterCursor, CURSOR_ORDER, toPage } from "./pagination";

export interface ExecutionRecord {
  kind: "conversation" | "transaction" | "test";
  itemId: string;
  itemKind: "agent" | "flow" | "app";
  versionId: string | null;
  conversationId?: string | null;
  status: "succeeded" | "failed" | "cancelled" | "output_invalid";
  credits: number;
  latencyMs: number;
  input: string;
  output: string;
  error?: string | null;
  trace: TraceEntry[];
}

export async function recordExecution(db: Db, actor: Actor, record: ExecutionRecord) {
  return db.execution.create({
    data: {
      ...record,
      latencyMs: Math.round(record.latencyMs),
      organizationId: actor.organizationId,
      actor: actorLabel(actor),
      trace: record.trace as unknown as Prisma.InputJsonValue,
    },
  });
}

type ExecutionRow = Awaited<ReturnType<typeof recordExecution>>;

function toExecution(row: ExecutionRow): Execution {
  return { ...row, trace: row.trace as Execution["trace"], createdAt: row.createdAt.toISOString() };
}

export async function listExecutions(db: Db, actor: Actor, input: { limit: number; cursor?: string; itemId?: string }) {
  authorize(actor, { scope: "apps:read" });
  const rows = await db.execution.findMany({
    where: { organizationId: actor.organizationId, ...(input.itemId ? { itemId: input.itemId } : {}), ...afterCursor(input.cursor) },
    orderBy: CURSOR_ORDER,
    take: input.limit + 1,
  });
  const page = toPage(rows, input.limit);
  return { executions: page.items.map(toExecution), nextCursor: page.nextCursor };
}

export async function getExecution(db: Db, actor: Actor, input: { executionId: string }): Promise<Execution> {
  authorize(actor, { scope: "apps:read" });
  const row = await db.execution.findFirst({ where: { id: input.executionId, organizationId: actor.organizationId } });
  if (!row) throw new AppError("not_found", "No execution with that id.");
  return toExecution(row);
}
