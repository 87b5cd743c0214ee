// What a run costs, in one place. Every kind of run (a conversation turn in
// services/conversations.ts, a transaction in services/transactions.ts, a test case in
// services/test-runs.ts) is charged before it runs, through a BilledRun, which decides when the
// run fails whether the charge stands or is given back, and records the execution with what was kept.
//
// The policy, from the contract's "Credits", run bounds and "Conversation streams":
// - a refusal before the run (insufficient_credits included) charges nothing;
// - a run that ends with a reply is billed, even one that misses its output schema (output_invalid);
// - a run stopped by its bounds (run_limit_exceeded) is billed: it ran;
// - a run canceled after it started is billed: it ran;
// - a provider failure (provider_error) is billed only when the run had produced something:
//   a piece of the reply went out, or an agent, flow, node or tool gave its output (routing
//   among members produces nothing for the caller);
// - anything else is a failure on our side, and is given back.
// A refund happens at most once per run, as soon as the failure is known. A run charged with its
// lease (runtime/run-leases.ts) that is lost with its process is settled there: given back, failed.
import type { ExecutionStatus } from "@/schemas/runtime";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError, isAppError, toAppError } from "@/server/errors";
import { chargedPool, chargeRunCredit, refundRunCredit, type RunCharge } from "@/server/services/credits";
import { recordExecution, type ExecutionRecord } from "@/server/services/executions";
import { whenDatabaseAnswers } from "./database-wait";
import { dropLease, holdLease, refundLeased, RUN_LOST, type LeasedExecution } from "./run-leases";
import { runCanceled, type RunContext } from "./run";

/** Credits per run: the contract's "1 per conversation or transaction call, 1 per test case". */
export const RUN_CREDITS = { conversation: 1, transaction: 1, testCase: 1 } as const;

/** Who pays for a run: the organization, and the end user's pools when it runs for one. */
export interface RunPayer {
  organizationId: string;
  endUserId: string | null;
  /** A refusal (402) is counted in usage for this app and portal. */
  usage?: { appId: string; portalId: string | null };
}

/** The execution fields a run's caller knows; the outcome's (status, credits, error, pool) come from the BilledRun. */
export type RunRecord = Omit<ExecutionRecord, "status" | "credits" | "error">;

/**
 * Takes a run's credits before it runs, or throws insufficient_credits and takes nothing. A test
 * run pays for all its cases at once with this, then bills each case with BilledRun.prepaid.
 */
export function chargeRun(db: Db, payer: RunPayer, credits: number, lease?: LeasedExecution): Promise<RunCharge> {
  return chargeRunCredit(
    db,
    payer.organizationId,
    payer.endUserId,
    credits,
    payer.usage,
    lease && { id: lease.id, execution: lease },
  );
}

/** Whether a failed run keeps its charge: the policy above. */
export function failureIsBilled(failure: AppError, run: { canceled: boolean; produced: boolean }): boolean {
  if (run.canceled) return true;
  if (failure.code === "run_limit_exceeded") return true;
  return failure.code === "provider_error" && run.produced;
}

export class BilledRun {
  private repliedAnything = false;
  private settled: { status: ExecutionStatus; credits: number; error: string | null } | null = null;

  private constructor(
    private readonly db: Db,
    private readonly ctx: RunContext,
    private readonly charge: RunCharge,
    /** What the run costs when it is billed. */
    readonly credits: number,
    /** The execution's id when the run holds a lease (runtime/run-leases.ts). */
    private readonly leaseId: string | null = null,
  ) {}

  /**
   * Charges the run (a refusal throws, and nothing runs) with its lease (runtime/run-leases.ts):
   * `lease` is what its execution says if the run is lost. The run's context tells whether it
   * was canceled or produced anything.
   */
  static async start(
    db: Db,
    ctx: RunContext,
    payer: RunPayer,
    credits: number,
    lease: LeasedExecution,
  ): Promise<BilledRun> {
    const charge = await chargeRun(db, payer, credits, lease);
    holdLease(db, lease.id);
    return new BilledRun(db, ctx, charge, credits, lease.id);
  }

  /** One case of a run the organization paid for as a whole with chargeRun (a test run): a refund gives back this case's share. */
  static prepaid(db: Db, ctx: RunContext, organizationId: string, credits: number): BilledRun {
    return new BilledRun(db, ctx, { kind: "organization", organizationId, amount: credits }, credits);
  }

  /** The end user's pool that paid, if one did (usage names its plan). */
  get subscriptionId(): string | null {
    return chargedPool(this.charge);
  }

  /** Passes each piece of the reply on, noting that the run has produced something. */
  onDelta(listener?: (text: string) => void): (text: string) => void {
    return (text) => {
      this.repliedAnything = true;
      listener?.(text);
    };
  }

  /**
   * Settles a failed run by the policy (a refund when it is not billed) and answers the error to
   * throw: the run's own AppError, `canceled`, or server_error for anything unexpected.
   */
  async fail(cause: unknown): Promise<AppError> {
    const canceled = this.ctx.cancel?.aborted === true;
    const failure = canceled ? runCanceled() : toAppError(cause);
    if (!this.settled) {
      const produced = this.repliedAnything || this.ctx.trace.some((entry) => entry.kind !== "supervisor");
      const billed = failureIsBilled(failure, { canceled, produced });
      let lost = false;
      if (!billed && this.leaseId) {
        const leaseId = this.leaseId;
        try {
          lost = !(await whenDatabaseAnswers("Giving back a failed run's credit", () =>
            refundLeased(this.db, leaseId, this.charge),
          ));
        } catch (error) {
          // No longer renewed here: the sweeper settles it once the database answers.
          this.ended();
          throw error;
        }
      } else if (!billed) await refundRunCredit(this.db, this.charge);
      this.settled = lost
        ? { status: "failed", credits: 0, error: RUN_LOST.message }
        : { status: canceled ? "canceled" : "failed", credits: billed ? this.credits : 0, error: failure.message };
    }
    if (canceled || isAppError(cause)) return failure;
    return new AppError(
      "server_error",
      "The run failed on our side; nothing was charged. It is safe to retry.",
      {},
      { cause },
    );
  }

  /** What the run's record says: succeeded (or the status given) and billed, or the failure as settled. */
  outcome(status: ExecutionStatus = "succeeded"): {
    status: ExecutionStatus;
    credits: number;
    error: string | null;
    subscriptionId: string | null;
  } {
    return { ...(this.settled ?? { status, credits: this.credits, error: null }), subscriptionId: this.subscriptionId };
  }

  /** Records the run's execution (and its usage) with its outcome; a leased run's lease ends with it. */
  async record(actor: Actor | EndUserActor, run: RunRecord, status?: ExecutionStatus) {
    const record = { ...run, ...(this.leaseId ? { id: this.leaseId } : {}), ...this.outcome(status) };
    try {
      return await whenDatabaseAnswers("Recording a run's execution", () => recordExecution(this.db, actor, record));
    } finally {
      this.ended();
    }
  }

  /** The run's execution is recorded (or will not be by this process): its lease is no longer renewed here. */
  ended(): void {
    if (this.leaseId) dropLease(this.db, this.leaseId);
  }
}
