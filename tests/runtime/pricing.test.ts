// The charge rules of src/server/runtime/pricing.ts, as pure functions: unpriced runs at their
// flat price, priced runs at the larger of their minimum and their metered cost rounded up,
// unpriced calls adding nothing, the upfront charge, and each call's share of what was charged.
import { describe, expect, it } from "vitest";
import { turnCredits } from "@/schemas/org/model-prices";
import type { ModelCall } from "@/server/runtime/metering";
import { knownCallsOfApp } from "@/server/runtime/metering";
import { firstReservation, runCharge, shareCharge, upfrontCharge, type ModelPrice } from "@/server/runtime/pricing";

function call(model: string, inputTokens: number, outputTokens: number): ModelCall {
  return { model, provider: "p", inputTokens, outputTokens, usageReported: true, outcome: "succeeded" };
}

const gpt: ModelPrice = { inputCreditsPerMillion: 300_000, outputCreditsPerMillion: 600_000, minimumCredits: 2 };
const big: ModelPrice = { inputCreditsPerMillion: 1_000_000, outputCreditsPerMillion: 1_000_000, minimumCredits: 50 };
const prices = new Map([
  ["gpt", gpt],
  ["big", big],
]);

describe("runCharge", () => {
  it("charges the flat price when no call is to a priced model", () => {
    expect(runCharge([], prices, 1)).toBe(1);
    expect(runCharge([call("atrium-offline", 5000, 5000)], prices, 1)).toBe(1);
  });

  it("charges the metered cost, rounded up, above the minimum", () => {
    // 10 × 0.3 + 5 × 0.6 = 6 credits.
    expect(runCharge([call("gpt", 10, 5)], prices, 1)).toBe(6);
    // 11 × 0.3 + 5 × 0.6 = 6.3 → 7.
    expect(runCharge([call("gpt", 11, 5)], prices, 1)).toBe(7);
  });

  it("charges the minimum when the metered cost is below it", () => {
    expect(runCharge([call("gpt", 1, 1)], prices, 1)).toBe(2);
    expect(runCharge([call("gpt", 0, 0)], prices, 1)).toBe(2);
  });

  it("sums every priced call (tool-calling rounds, several agents) and ignores unpriced ones", () => {
    expect(runCharge([call("gpt", 10, 5), call("gpt", 100, 20), call("atrium-offline", 999, 999)], prices, 1)).toBe(
      6 + 42,
    );
  });

  it("takes the largest minimum of the priced models called", () => {
    expect(runCharge([call("gpt", 10, 5), call("big", 1, 1)], prices, 1)).toBe(50);
    expect(runCharge([call("gpt", 1000, 1000), call("big", 10, 10)], prices, 1)).toBe(900 + 20);
  });

  it("stays exact past 2^53 millionths", () => {
    const priciest = new Map([
      ["x", { inputCreditsPerMillion: 1_000_000_000, outputCreditsPerMillion: 1_000_000_000, minimumCredits: 0 }],
    ]);
    expect(runCharge([call("x", 10_000_000, 10_000_000)], priciest, 1)).toBe(20_000_000_000);
    expect(runCharge([call("x", 1, 0)], priciest, 1)).toBe(1000);
  });
});

describe("upfrontCharge", () => {
  it("is the flat price when no model of the run is priced", () => {
    expect(upfrontCharge(["atrium-offline"], prices, 1)).toBe(1);
    expect(upfrontCharge([], prices, 1)).toBe(1);
  });

  it("is the largest minimum of the priced models, at least the flat price when an unpriced one may answer", () => {
    expect(upfrontCharge(["gpt", "big"], prices, 1)).toBe(50);
    expect(upfrontCharge(["gpt"], prices, 1)).toBe(2);
    const free = new Map([["gpt", { ...gpt, minimumCredits: 0 }]]);
    expect(upfrontCharge(["gpt"], free, 1)).toBe(0);
    expect(upfrontCharge(["gpt", "atrium-offline"], free, 1)).toBe(1);
  });
});

describe("firstReservation", () => {
  // A call of 10 input tokens and at most 100 output: 63 credits on gpt, 110 on big.
  it("is the dearest first call's ceiling, or the known calls' together when more (the cheapest model of each)", () => {
    expect(firstReservation(["gpt", "big"], prices, 1, 10, 100)).toBe(110);
    expect(firstReservation(["gpt", "big"], prices, 1, 10, 100, [["gpt"], ["gpt", "big"]])).toBe(126);
    // An unpriced model among a call's models: that call may cost nothing.
    expect(firstReservation(["gpt", "atrium-offline"], prices, 1, 10, 100, [["gpt"], ["gpt", "atrium-offline"]])).toBe(
      63,
    );
    expect(firstReservation(["atrium-offline"], prices, 1, 10, 100, [["atrium-offline"], ["atrium-offline"]])).toBe(1);
  });

  it("knows a built-in supervisor's routing and one answer, no more when a flow may answer", () => {
    const agent = (model: string, fallbackModels?: string[]) => ({
      kind: "agent" as const,
      runnable: { document: { model, fallbackModels } },
      flows: [],
    });
    const flow = { kind: "flow" as const, runnable: { document: { nodes: [] } } };
    const app = (
      orchestrationMode: "supervisor" | "sequential",
      members: (typeof flow | ReturnType<typeof agent>)[],
    ) => ({
      app: { document: { orchestrationMode } },
      adviser: null,
      members,
    });
    expect(knownCallsOfApp(app("supervisor", [agent("gpt", ["big"]), agent("atrium-offline")]))).toEqual([
      ["atrium-offline"],
      ["gpt", "big", "atrium-offline"],
    ]);
    expect(knownCallsOfApp(app("supervisor", [agent("gpt"), flow]))).toEqual([["atrium-offline"]]);
    expect(knownCallsOfApp(app("sequential", [agent("gpt")]))).toEqual([]);
    expect(
      knownCallsOfApp({
        ...app("supervisor", [agent("gpt")]),
        adviser: { runnable: agent("gpt").runnable, flows: [] },
      }),
    ).toEqual([]);
  });
});

describe("shareCharge", () => {
  it("shares the charge among priced calls by cost, adding up exactly", () => {
    const calls = [call("gpt", 10, 5), call("gpt", 10, 5), call("gpt", 10, 5), call("atrium-offline", 9, 9)];
    const shared = shareCharge(calls, prices, 19);
    expect(shared.map((c) => c.credits)).toEqual([7, 6, 6, 0]);
  });

  it("gives an unpriced run's flat price to its last call, and a minimum to the priced call of the largest", () => {
    expect(shareCharge([call("a", 1, 1), call("b", 1, 1)], prices, 1).map((c) => c.credits)).toEqual([0, 1]);
    expect(shareCharge([call("gpt", 0, 0), call("big", 0, 0)], prices, 50).map((c) => c.credits)).toEqual([0, 50]);
    expect(shareCharge([call("gpt", 1, 1)], prices, 0).map((c) => c.credits)).toEqual([0]);
  });
});

it("prices the console's typical turn (1,000 input and 500 output tokens) by the same rule", () => {
  expect(turnCredits(gpt)).toBe(600);
  expect(turnCredits({ inputCreditsPerMillion: 1, outputCreditsPerMillion: 1, minimumCredits: 1 })).toBe(1);
  expect(turnCredits(gpt)).toBe(runCharge([call("gpt", 1000, 500)], prices, 1));
});
