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
// lease (runtime/run-leases.ts) that is lost with its process is settled there: given back what
// it was charged, failed.
//
// A run on models its organization prices (run-pricing.ts) is charged its minimum before it runs
// and settled when it ends: what its model calls cost, as much as is left (reservations next).
// Its settlement updates the amount its lease records in the same statement, so a run lost
// between its settlement and its record is given back exactly what it was charged.
import type { ExecutionStatus, ExecutionUsage } from "@/schemas/runtime";
import type { Db } from "@/server/db";
import { AppError, isAppError, toAppError } from "@/server/errors";
import {
  chargedPool,
  chargeRunCredit,
  refundRunCredit,
  settleRunCharge,
  type RunCharge,
} from "@/server/services/credits";
import { executionUsage, runPricing, settledCharge, type RunPricing } from "./run-pricing";
import { recordExecution, type ExecutionRecord, type RunActor } from "@/server/services/executions";
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
    private charge: RunCharge,
    /** What the run costs: its flat price, or its models' prices. */
    private readonly pricing: RunPricing,
    /** The execution's id when the run holds a lease (runtime/run-leases.ts). */
    private readonly leaseId: string | null = null,
  ) {}

  /**
   * Charges the run (a refusal throws, and nothing runs) with its lease (runtime/run-leases.ts):
   * `lease` is what its execution says if the run is lost. `models`: those it may call, which
   * price it when the organization prices them. The run's context tells whether it was canceled
   * or produced anything.
   */
  static async start(
    db: Db,
    ctx: RunContext,
    payer: RunPayer,
    credits: number,
    lease: LeasedExecution,
    models: string[] = [],
  ): Promise<BilledRun> {
    const pricing = await runPricing(db, payer.organizationId, credits, models);
    const charge = await chargeRun(db, payer, pricing.upfront, lease);
    holdLease(db, lease.id);
    return new BilledRun(db, ctx, charge, pricing, lease.id);
  }

  /**
   * A run continuing after an approval (services/approvals.ts): what it was charged is kept in the
   * approval, and a new lease (written when the continuation was claimed) is renewed here.
   */
  static resumed(db: Db, ctx: RunContext, charge: RunCharge, pricing: RunPricing, leaseId: string): BilledRun {
    holdLease(db, leaseId);
    return new BilledRun(db, ctx, charge, pricing, leaseId);
  }

  /** One case of a run the organization paid for as a whole with chargeRun (a test run): a refund gives back this case's share. */
  static prepaid(db: Db, ctx: RunContext, organizationId: string, pricing: RunPricing): BilledRun {
    return new BilledRun(db, ctx, { kind: "organization", organizationId, amount: pricing.upfront }, pricing);
  }

  /** What the run costs when it is billed: its flat price, or what its model calls cost. */
  get credits(): number {
    return settledCharge(this.pricing, this.ctx.meter.calls);
  }

  /**
   * Takes or gives back the difference between what was charged before the run and what it
   * costs (and what its lease records with it); answers what it kept, or null when the run was
   * settled as lost meanwhile (runtime/run-leases.ts), which gave back what it took.
   */
  private async settleCharge(): Promise<number | null> {
    const charge = await settleRunCharge(this.db, this.charge, this.credits, this.leaseId);
    if (!charge) return null;
    this.charge = charge;
    return charge.amount;
  }

  /** Settles a run that ended (succeeded, output_invalid or canceled as a reply): it is billed what it cost. */
  async settle(status: ExecutionStatus = "succeeded"): Promise<ReturnType<BilledRun["outcome"]>> {
    if (!this.settled) {
      const kept = await this.settleCharge();
      this.settled =
        kept === null
          ? { status: "failed", credits: 0, error: RUN_LOST.message }
          : { status, credits: kept, error: null };
    }
    return this.outcome(status);
  }

  /**
   * A run paused for an approval: settled at what it cost so far, as a run that ended would be (a
   * flat-priced run keeps its charge; a priced one pays for its model calls so far, and the rest
   * when it continues). Null when it was settled as lost meanwhile. The caller deletes the lease
   * with the pause's record; what it continues with is what this answers.
   */
  async pause(): Promise<{ charge: RunCharge; pricing: RunPricing; credits: number } | null> {
    const kept = await this.settleCharge();
    if (kept === null) return null;
    return { charge: this.charge, pricing: this.pricing, credits: kept };
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
      let credits = 0;
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
      else {
        let kept: number | null;
        try {
          kept = await this.settleCharge();
        } catch (error) {
          // As above: what this process could not settle, the sweeper does (given back what it took).
          this.ended();
          throw error;
        }
        lost = kept === null;
        credits = kept ?? 0;
      }
      this.settled = lost
        ? { status: "failed", credits: 0, error: RUN_LOST.message }
        : { status: canceled ? "canceled" : "failed", credits, error: failure.message };
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
    usage: ExecutionUsage;
  } {
    const settled = this.settled ?? { status, credits: this.credits, error: null };
    return {
      ...settled,
      subscriptionId: this.subscriptionId,
      usage: executionUsage(this.pricing, this.ctx.meter.calls, settled.credits),
    };
  }

  /** Records the run's execution (and its usage) with its outcome, settling its charge first; a leased run's lease ends with it. */
  async record(actor: RunActor, run: RunRecord, status?: ExecutionStatus) {
    try {
      if (!this.settled) await this.settle(status);
      const record = { ...run, ...(this.leaseId ? { id: this.leaseId } : {}), ...this.outcome(status) };
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
