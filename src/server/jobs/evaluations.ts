// Evaluation runs in the background: each case of a run is a row of eval_results, claimed like
// index_jobs (indexing.ts): FOR UPDATE SKIP LOCKED with a claim token and a lease, so no two
// workers in any number of processes hold one case at a time, and a case whose process died is
// claimed again when its lease runs out (at most MAX_ATTEMPTS times; then it fails, so a case
// that kills its process is never handed on forever). Only the holder of the claim writes the
// result. The run is `completed` once no case is left.
import { randomUUID } from "node:crypto";
import { AgentDocument, FlowDocument, type BuilderKind } from "@/schemas/builder/builder";
import type { Actor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { isAppError } from "@/server/errors";
import { loadLiveApp } from "@/server/runtime/load";
import type { Runnable } from "@/server/runtime/run-context";
import { caseTarget, draftTarget, runGradedCase, type CaseTarget, type GradedCase } from "@/server/runtime/graded-case";
import { startPollingWorker, type PollingWorker } from "./polling-worker";

export interface EvalWorkerOptions {
  leaseMs?: number;
  /** Cases claimed per round. */
  batch?: number;
  pollMs?: number;
  /** Called after cases are claimed, before they run (tests use it to simulate a crash). */
  afterClaim?: (cases: ClaimedCase[]) => Promise<void> | void;
}

export interface ClaimedCase {
  id: string;
  runId: string;
  caseId: string;
  claimToken: string;
  attempts: number;
}

const DEFAULTS = { leaseMs: 5 * 60_000, batch: 2, pollMs: 1_000 };
export const MAX_ATTEMPTS = 3;

export async function claimEvalCases(db: Db, count: number, leaseMs: number): Promise<ClaimedCase[]> {
  const token = randomUUID();
  return db.$queryRaw<ClaimedCase[]>`
    update eval_results r set status = 'running', claim_token = ${token}::uuid,
      lease_until = now() + (${leaseMs} * interval '1 millisecond'), attempts = r.attempts + 1
    where r.id in (
      select id from eval_results
      where status = 'pending' or (status = 'running' and lease_until < now())
      order by run_id, position
      for update skip locked
      limit ${count}
    )
    returning r.id, r.run_id as "runId", r.case_id as "caseId", r.claim_token as "claimToken", r.attempts`;
}

interface CaseOutcome {
  passed: boolean;
  reason: string;
  output: string;
  error: string | null;
  credits: number;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  executionId: string | null;
}

function failedOutcome(error: string): CaseOutcome {
  return {
    passed: false,
    reason: error,
    output: "",
    error,
    credits: 0,
    inputTokens: 0,
    outputTokens: 0,
    latencyMs: 0,
    executionId: null,
  };
}

/** What the run executes: the draft as it is now, or the version it names (an app's with its pins). */
async function targetOf(
  db: Db,
  actor: Actor,
  run: { itemId: string; itemKind: string; versionId: string | null; draft: unknown },
): Promise<CaseTarget> {
  const kind = run.itemKind as BuilderKind;
  if (run.versionId === null) return draftTarget(db, actor, kind, run.itemId, run.draft);
  if (kind === "app") {
    const appRun = await loadLiveApp(db, actor, run.itemId, run.versionId);
    return caseTarget(db, actor.organizationId, kind, appRun.app, appRun);
  }
  const version = await db.builderVersion.findFirstOrThrow({
    where: { id: run.versionId, organizationId: actor.organizationId },
  });
  const document = (kind === "agent" ? AgentDocument : FlowDocument).parse(version.document);
  const runnable: Runnable<unknown> = { id: run.itemId, versionId: version.id, document };
  return caseTarget(db, actor.organizationId, kind, runnable, null);
}

async function runCase(db: Db, claimed: ClaimedCase, targets: Map<string, Promise<CaseTarget>>): Promise<CaseOutcome> {
  const row = await db.evalResult.findUnique({
    where: { id: claimed.id },
    select: {
      evalCase: { select: { input: true, expectedBehavior: true } },
      run: {
        select: { organizationId: true, itemId: true, itemKind: true, versionId: true, actor: true, draft: true },
      },
    },
  });
  if (!row) return failedOutcome("The run was deleted.");
  if (claimed.attempts > MAX_ATTEMPTS)
    return failedOutcome(`The case stopped its worker ${MAX_ATTEMPTS} times; it was not run again.`);
  const actor = row.run.actor as unknown as Actor;
  let target: CaseTarget;
  try {
    let pending = targets.get(claimed.runId);
    if (!pending) {
      pending = targetOf(db, actor, row.run);
      targets.set(claimed.runId, pending);
    }
    target = await pending;
  } catch (error) {
    if (isAppError(error)) return failedOutcome(error.message);
    throw error;
  }
  let graded: GradedCase;
  try {
    graded = await runGradedCase(db, actor, target, {
      input: row.evalCase.input,
      expected: row.evalCase.expectedBehavior,
    });
  } catch (error) {
    // Refused before it ran (insufficient_credits): charged nothing.
    if (isAppError(error)) return failedOutcome(error.message);
    throw error;
  }
  return {
    passed: graded.passed,
    reason: graded.reason,
    output: graded.output,
    error: graded.error,
    credits: graded.credits,
    inputTokens: graded.usage.inputTokens,
    outputTokens: graded.usage.outputTokens,
    latencyMs: graded.latencyMs,
    executionId: graded.executionId,
  };
}

async function writeOutcome(db: Db, claimed: ClaimedCase, outcome: CaseOutcome): Promise<void> {
  const written = await db.evalResult.updateMany({
    where: { id: claimed.id, claimToken: claimed.claimToken, status: "running" },
    data: { status: "done", finishedAt: new Date(), claimToken: null, leaseUntil: null, ...outcome },
  });
  if (written.count === 0) return;
  await db.$executeRaw`
    update eval_runs set status = case
        when exists (select 1 from eval_results where run_id = ${claimed.runId}::uuid and status <> 'done') then 'running'
        else 'completed' end,
      finished_at = case
        when exists (select 1 from eval_results where run_id = ${claimed.runId}::uuid and status <> 'done') then null
        else now() end
    where id = ${claimed.runId}::uuid and status <> 'completed'`;
}

/** One round: claims up to `batch` cases and runs them one after another; answers whether it found any. */
export async function runEvalRound(db: Db, options: EvalWorkerOptions = {}): Promise<boolean> {
  const leaseMs = options.leaseMs ?? DEFAULTS.leaseMs;
  const claimed = await claimEvalCases(db, options.batch ?? DEFAULTS.batch, leaseMs);
  if (claimed.length === 0) return false;
  await options.afterClaim?.(claimed);
  await db.$executeRaw`update eval_runs set status = 'running' where id = any(${claimed.map((c) => c.runId)}::uuid[]) and status = 'queued'`;
  const targets = new Map<string, Promise<CaseTarget>>();
  for (const item of claimed) {
    // The holder renews its lease while the case runs, so a slow model does not hand it on.
    const renew = setInterval(
      () =>
        void db.$executeRaw`update eval_results set lease_until = now() + (${leaseMs} * interval '1 millisecond')
          where id = ${item.id}::uuid and claim_token = ${item.claimToken}::uuid`.catch(() => {}),
      Math.max(leaseMs / 3, 50),
    );
    try {
      await writeOutcome(db, item, await runCase(db, item, targets));
    } finally {
      clearInterval(renew);
    }
  }
  return true;
}

export function startEvalWorker(db: Db, options: EvalWorkerOptions = {}): PollingWorker {
  return startPollingWorker(
    { name: "Evaluation worker", pollMs: options.pollMs ?? DEFAULTS.pollMs, maxBackoffMs: 60_000 },
    () => runEvalRound(db, options),
  );
}
