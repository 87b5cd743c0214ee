// What a run costs, in one place. Every kind of run (a conversation turn in
// services/runs/conversations.ts, a transaction in services/runs/transactions.ts, a graded test or
// evaluation case in runtime/graded-case.ts) is charged before it runs, through a BilledRun, which decides when the
// run fails whether the charge stands or is given back, and records the execution with what was kept.
//
// The policy, from the contract's "Credits", run bounds and "Conversation streams":
// - a refusal before the run (insufficient_credits, model_not_in_plan included) charges nothing;
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
// A run on models its organization prices (run-pricing.ts) reserves before it runs its minimum or
// the ceiling of its first priced call (estimated input plus RUN_LIMITS.callOutputTokens, priced),
// or those of the calls it surely makes first (a supervisor's routing and an answer), whichever is
// more, and before each priced call (tool-calling rounds included) raises its
// reservation to cover every call's ceiling so far, all or nothing (insufficient_credits, and the
// call is not made); each call's output is capped at its maximum. When it ends it is settled in
// one statement: what its model calls cost, never more than it reserved, the rest released. Every
// reservation and settlement updates the amount its lease records, and each recorded call the
// cost, so a run lost with its process is charged what its recorded calls cost (run-leases.ts).
// A call's cost goes on the lease in the turn of the event loop its call ended in: with the
// reservation or the settlement when one follows in that turn, else in a statement of its own.
import type { ExecutionStatus, ExecutionUsage } from "@/schemas/runs/runtime";
import type { Db } from "@/server/db";
import { AppError, isAppError, toAppError } from "@/server/errors";
import { logger } from "@/server/observability/log";
import { chargedPool, chargeRunCredit, refundRunCredit, type RunCharge } from "@/server/services/provisioning/credits";
import { recordLeasedCost, reserveRunCredits, settleRunCharge } from "@/server/services/provisioning/credit-settlement";
import { RUN_LIMITS } from "./limits";
import { estimateTokens, type CallReserver, type ModelCall } from "./metering";
import { callCeilingMicro, wholeCredits, type PriceList } from "./pricing";
import { executionUsage, runPricing, settledCharge, type RunPricing } from "./run-pricing";
import { recordExecution, type ExecutionRecord, type RunActor } from "@/server/services/runs/executions";
import { assertModelsInPlans, limitedModels } from "@/server/services/provisioning/tier-plans";
import { whenDatabaseAnswers } from "./database-wait";
import { dropLease, holdLease, refundLeased, RUN_LOST, type LeasedExecution } from "./run-leases";
import { runCanceled, type RunContext } from "./run-context";

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

/** Takes a run's credits before it runs (with its lease), or throws insufficient_credits and takes nothing. */
function chargeRun(
  db: Db,
  payer: RunPayer,
  credits: number,
  lease: LeasedExecution,
  models: string[],
): Promise<RunCharge> {
  return chargeRunCredit(
    db,
    payer.organizationId,
    payer.endUserId,
    credits,
    payer.usage,
    { id: lease.id, execution: lease },
    limitedModels(models),
  );
}

/** Whether a failed run keeps its charge: the policy above. */
export function failureIsBilled(
  failure: AppError,
  run: { canceled: boolean; produced: boolean; called?: boolean },
): boolean {
  if (run.canceled) return true;
  if (failure.code === "run_limit_exceeded") return true;
  // A reservation refused after model calls were made: they are charged what they cost.
  if (failure.code === "insufficient_credits") return run.called === true;
  return failure.code === "provider_error" && run.produced;
}

export class BilledRun implements CallReserver {
  private repliedAnything = false;
  /** The ceilings of the priced calls made so far, in millionths of a credit. */
  private ceilingMicro = 0n;
  /** The cost of the recorded calls as the lease records it (or will: `unwrittenCost`). */
  private leasedCost = 0;
  /** The cost of the recorded calls not yet written on the lease. */
  private unwrittenCost: number | null = null;
  /** Writes on the run's charge and lease, one after another (members may call models at once). */
  private writes: Promise<unknown> = Promise.resolve();
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
   * price it when the organization prices them; `knownCalls`: the calls it surely makes first
   * (metering.ts, knownCallsOfApp), reserved with its charge; `prices`: the organization's, when
   * the caller read them (else read here). The run's context tells whether it was canceled or produced anything.
   */
  static async start(
    db: Db,
    ctx: RunContext,
    payer: RunPayer,
    credits: number,
    lease: LeasedExecution,
    models: string[] = [],
    knownCalls: string[][] = [],
    prices?: PriceList,
  ): Promise<BilledRun> {
    if (payer.endUserId) await assertModelsInPlans(db, payer.organizationId, payer.endUserId, models);
    const pricing = await runPricing(
      db,
      payer.organizationId,
      credits,
      models,
      estimateTokens(lease.input),
      knownCalls,
      prices,
    );
    const charge = await chargeRun(db, payer, pricing.upfront, lease, models);
    holdLease(db, lease.id);
    const billed = new BilledRun(db, ctx, charge, pricing, lease.id);
    ctx.meter.reserver = billed;
    return billed;
  }

  private serially<T>(write: () => Promise<T>): Promise<T> {
    const next = this.writes.then(write);
    this.writes = next.catch(() => undefined);
    return next;
  }

  /** CallReserver: raises the reservation to every priced call's ceiling so far, before this one. */
  async reserve(
    model: string,
    inputTokens: number,
    maxOutputTokens: number = RUN_LIMITS.callOutputTokens,
  ): Promise<number | undefined> {
    const price = this.pricing.prices.get(model);
    if (!price) return undefined;
    this.ceilingMicro += callCeilingMicro(price, inputTokens, maxOutputTokens);
    const needed = Math.max(this.pricing.upfront, wholeCredits(this.ceilingMicro));
    await this.serially(async () => {
      if (needed <= this.charge.amount) return;
      const cost = this.takeUnwrittenCost();
      const charge = await this.withCost(cost, () =>
        reserveRunCredits(this.db, this.charge, needed, this.leaseId, cost),
      );
      if (!charge) throw new Error("The run was settled as lost while it ran.");
      this.charge = charge;
    });
    return maxOutputTokens;
  }

  /** The cost the lease does not record yet, now to be written by the caller's statement. */
  private takeUnwrittenCost(): number | null {
    const cost = this.unwrittenCost;
    this.unwrittenCost = null;
    return cost;
  }

  /** Runs a statement that writes `cost` on the lease; if it fails, the cost is still to be written. */
  private async withCost<T>(cost: number | null, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (cost !== null) this.unwrittenCost ??= cost;
      throw error;
    }
  }

  private async writeCost(cost: number): Promise<void> {
    const leaseId = this.leaseId;
    if (leaseId) await this.withCost(cost, () => recordLeasedCost(this.db, leaseId, cost));
  }

  /** CallReserver: a call that failed before any output no longer counts toward the ceilings. */
  release(model: string, inputTokens: number): void {
    const price = this.pricing.prices.get(model);
    if (price) this.ceilingMicro -= callCeilingMicro(price, inputTokens, RUN_LIMITS.callOutputTokens);
  }

  /**
   * CallReserver: the lease records what the calls cost so far, which a lost run is charged:
   * written by the next reservation or the settlement when one comes in this turn of the event
   * loop (they often follow a call at once), else by a statement of its own (setImmediate).
   */
  recorded(calls: readonly ModelCall[]): void {
    const leaseId = this.leaseId;
    if (!leaseId || !calls.some((call) => this.pricing.prices.has(call.model))) return;
    const cost = Math.min(settledCharge(this.pricing, calls), this.charge.amount);
    if (cost === this.leasedCost) return;
    this.leasedCost = cost;
    this.unwrittenCost = cost;
    setImmediate(() => {
      if (this.unwrittenCost === null) return;
      this.serially(async () => {
        const unwritten = this.takeUnwrittenCost();
        if (unwritten !== null) await this.writeCost(unwritten);
      }).catch((error: unknown) =>
        logger().warn({ err: error, executionId: leaseId }, "Could not record a run's cost on its lease"),
      );
    });
  }

  /**
   * A run continuing after an approval (services/runs/approvals.ts): what it was charged is kept in the
   * approval, and a new lease (written when the continuation was claimed) is renewed here.
   */
  static resumed(db: Db, ctx: RunContext, charge: RunCharge, pricing: RunPricing, leaseId: string): BilledRun {
    holdLease(db, leaseId);
    const billed = new BilledRun(db, ctx, charge, pricing, leaseId);
    ctx.meter.reserver = billed;
    return billed;
  }

  /** What the run costs when it is billed: its flat price, or what its model calls cost (never more than it reserved). */
  get credits(): number {
    const cost = settledCharge(this.pricing, this.ctx.meter.calls);
    return this.ctx.meter.reserver === this ? Math.min(cost, this.charge.amount) : cost;
  }

  /**
   * Takes or gives back the difference between what was charged before the run and what it
   * costs (and what its lease records with it); answers what it kept, or null when the run was
   * settled as lost meanwhile (runtime/run-leases.ts), which gave back what it took.
   */
  private async settleCharge(): Promise<number | null> {
    await this.writes;
    const cost = this.takeUnwrittenCost();
    const charge = await this.withCost(cost, () =>
      settleRunCharge(this.db, this.charge, this.credits, this.leaseId, cost),
    );
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
      await this.writes;
      const produced = this.repliedAnything || this.ctx.trace.some((entry) => entry.kind !== "supervisor");
      const called = this.ctx.meter.calls.length > 0;
      const billed = failureIsBilled(failure, { canceled, produced, called });
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
