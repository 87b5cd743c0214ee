// A run's prices, read once before it runs: its flat price, the organization's prices of the
// models it may call, and what it is charged before it runs. The rules themselves are pricing.ts.
import type { ExecutionUsage } from "@/schemas/runs/runtime";
import type { Db } from "@/server/db";
import { organizationPrices } from "@/server/services/org/model-prices";
import type { ModelCall } from "./metering";
import { RUN_LIMITS } from "./limits";
import { firstReservation, runCharge, shareCharge, upfrontCharge, type PriceList } from "./pricing";

export interface RunPricing {
  /** What the run costs when none of its calls is to a priced model (RUN_CREDITS). */
  flat: number;
  /** What is charged before the run: see upfrontCharge, and firstReservation for a run that reserves. */
  upfront: number;
  prices: PriceList;
}

/**
 * Reads the organization's prices of the models a run may call (none priced: the flat price),
 * unless the caller read them already (`read`: an app's run reads them with the app, runtime/load.ts).
 * `inputTokens`: the estimated input of a run that reserves its calls' ceilings (billed-run.ts),
 * and `knownCalls` the calls it surely makes first (firstReservation).
 */
export async function runPricing(
  db: Db,
  organizationId: string,
  flat: number,
  models: string[],
  inputTokens?: number,
  knownCalls: string[][] = [],
  read?: PriceList,
): Promise<RunPricing> {
  const prices = read ?? (await organizationPrices(db, organizationId));
  const upfront =
    inputTokens === undefined
      ? upfrontCharge(models, prices, flat)
      : firstReservation(models, prices, flat, inputTokens, RUN_LIMITS.callOutputTokens, knownCalls);
  return { flat, upfront, prices };
}

/** What a run whose calls were `calls` costs. */
export function settledCharge(pricing: RunPricing, calls: readonly ModelCall[]): number {
  return runCharge(calls, pricing.prices, pricing.flat);
}

/** The execution's `usage`: its tokens and its calls, each with its share of what was charged. */
export function executionUsage(pricing: RunPricing, calls: readonly ModelCall[], charged: number): ExecutionUsage {
  return {
    inputTokens: calls.reduce((sum, call) => sum + call.inputTokens, 0),
    outputTokens: calls.reduce((sum, call) => sum + call.outputTokens, 0),
    usageReported: calls.every((call) => call.usageReported),
    calls: shareCharge(calls, pricing.prices, charged),
  };
}
