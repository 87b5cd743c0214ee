// What a run costs when its organization prices the models it calls (the contract's "Pricing:
// credits that follow cost"), as pure functions of the run's model calls and the prices: no
// database, so every rule here is a unit test (tests/runtime/pricing.test.ts).
//
// - A run that calls only unpriced models costs its flat price (1 credit), as before pricing.
// - Otherwise it costs the larger of its priced models' minimumCredits and
//   ceil(Σ (inputTokens × inputCreditsPerMillion + outputTokens × outputCreditsPerMillion) / 1,000,000)
//   over its priced calls; unpriced calls in a priced run add nothing.
// Sums are in bigint: 10M tokens at 1,000,000,000 credits per million is past 2^53.
import type { ModelCall } from "./metering";

export interface ModelPrice {
  inputCreditsPerMillion: number;
  outputCreditsPerMillion: number;
  minimumCredits: number;
}

/** An organization's prices by model id; a model without one is unpriced. */
export type PriceList = ReadonlyMap<string, ModelPrice>;

export interface PricedCall extends ModelCall {
  /** This call's share of the run's charge (the shares add up to it). */
  credits: number;
}

const MILLION = 1_000_000n;

/**
 * Whether a call counts toward a priced run's charge: a call of a priced model, unless it failed
 * without using anything (an attempt before a retry or a fallback: the run is charged once, at
 * the price of the model that answered).
 */
function isPriced(call: ModelCall, prices: PriceList): boolean {
  if (!prices.has(call.model)) return false;
  return !(call.outcome === "failed" && call.inputTokens === 0 && call.outputTokens === 0);
}

/** A call's exact cost, in millionths of a credit (0 when its model is unpriced). */
function microCredits(call: Pick<ModelCall, "model" | "inputTokens" | "outputTokens">, prices: PriceList): bigint {
  const price = prices.get(call.model);
  if (!price) return 0n;
  return (
    BigInt(call.inputTokens) * BigInt(price.inputCreditsPerMillion) +
    BigInt(call.outputTokens) * BigInt(price.outputCreditsPerMillion)
  );
}

/**
 * What a run whose calls were `calls` costs: `flat` when none of its calls was to a priced model,
 * else the contract's formula. Never more than Number.MAX_SAFE_INTEGER (the charge that can be
 * taken is bounded by the balance anyway).
 */
export function runCharge(calls: readonly ModelCall[], prices: PriceList, flat: number): number {
  const priced = calls.filter((call) => isPriced(call, prices));
  if (priced.length === 0) return flat;
  const minimum = Math.max(...priced.map((call) => prices.get(call.model)!.minimumCredits));
  const micro = priced.reduce((sum, call) => sum + microCredits(call, prices), 0n);
  return Math.max(minimum, wholeCredits(micro));
}

/**
 * What a run is asked for before it runs, from the models it may call (its agents' and its flows'
 * LLM nodes'): the largest minimumCredits among the priced ones, and at least `flat` when any is
 * unpriced (or none is named). A leased run reserves more: firstReservation.
 */
export function upfrontCharge(models: readonly string[], prices: PriceList, flat: number): number {
  const priced = models.filter((model) => prices.has(model));
  const floor = priced.length < new Set(models).size || models.length === 0 ? flat : 0;
  return Math.max(floor, ...priced.map((model) => prices.get(model)!.minimumCredits));
}

/** A priced call's ceiling, in millionths of a credit: its estimated input and its maximum output, priced. */
export function callCeilingMicro(price: ModelPrice, inputTokens: number, maxOutputTokens: number): bigint {
  return (
    BigInt(inputTokens) * BigInt(price.inputCreditsPerMillion) +
    BigInt(maxOutputTokens) * BigInt(price.outputCreditsPerMillion)
  );
}

/** Millionths of a credit as whole credits, rounded up (and at most Number.MAX_SAFE_INTEGER). */
export function wholeCredits(micro: bigint): number {
  const credits = (micro + MILLION - 1n) / MILLION;
  return credits > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(credits);
}

/**
 * What a run reserves before it runs: its upfront charge, or the ceiling of a first call of
 * `inputTokens` to the dearest of its priced models when that is more, or the ceilings of the
 * calls it surely makes first (`knownCalls`, each as the models it may be made on; the cheapest
 * counts, an unpriced one as 0) when they are more together: so those calls need no reservation
 * of their own, and a run that could not make them all is refused before it runs.
 */
export function firstReservation(
  models: readonly string[],
  prices: PriceList,
  flat: number,
  inputTokens: number,
  maxOutputTokens: number,
  knownCalls: readonly (readonly string[])[] = [],
): number {
  const ceilingOf = (model: string) => {
    const price = prices.get(model);
    return price ? callCeilingMicro(price, inputTokens, maxOutputTokens) : 0n;
  };
  const ceilings = models.flatMap((model) => (prices.has(model) ? [wholeCredits(ceilingOf(model))] : []));
  const cheapest = (call: readonly string[]) =>
    call.length === 0 ? 0n : call.map(ceilingOf).reduce((least, ceiling) => (ceiling < least ? ceiling : least));
  const known = knownCalls.reduce((sum, call) => sum + cheapest(call), 0n);
  return Math.max(upfrontCharge(models, prices, flat), ...ceilings, wholeCredits(known));
}

/**
 * Shares `charged` (what was actually taken) among the calls, for `usage.calls[].credits`: in
 * proportion to each priced call's cost (largest remainder, so the shares add up exactly); with
 * no metered cost, to the priced call of the largest minimum; in an unpriced run, to its last call.
 */
export function shareCharge(calls: readonly ModelCall[], prices: PriceList, charged: number): PricedCall[] {
  const shares = calls.map(() => 0);
  if (calls.length > 0 && charged > 0) {
    const pricedIndexes = calls.flatMap((call, index) => (isPriced(call, prices) ? [index] : []));
    const costs = calls.map((call) => microCredits(call, prices));
    const total = costs.reduce((sum, cost) => sum + cost, 0n);
    if (pricedIndexes.length === 0) shares[calls.length - 1] = charged;
    else if (total === 0n) {
      const minimumOf = (index: number) => prices.get(calls[index]!.model)!.minimumCredits;
      const first = pricedIndexes.reduce((best, index) => (minimumOf(index) > minimumOf(best) ? index : best));
      shares[first] = charged;
    } else {
      const whole = BigInt(charged);
      const remainders = costs.map((cost, index) => {
        shares[index] = Number((whole * cost) / total);
        return { index, rest: (whole * cost) % total };
      });
      let left = charged - shares.reduce((sum, share) => sum + share, 0);
      remainders.sort((a, b) => (a.rest === b.rest ? a.index - b.index : a.rest > b.rest ? -1 : 1));
      for (const { index } of remainders) {
        if (left <= 0) break;
        shares[index]! += 1;
        left -= 1;
      }
    }
  }
  return calls.map((call, index) => ({ ...call, credits: shares[index]! }));
}
