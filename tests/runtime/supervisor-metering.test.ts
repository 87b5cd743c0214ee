// The built-in supervisor's routing call is a model call like any other (issue 45): it is recorded
// on the execution's `usage.calls` with its tokens, shown in the trace, reserved and charged at
// its model's price, through the REST door.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, type Tenant } from "../helpers";
import { converse, credits, publishedApp } from "../runtime-helpers";

/** The organization's latest run, as GET /executions/{id} answers it. */
async function latestExecution(tenant: Tenant, key: string) {
  const { id } = await getDb().execution.findFirstOrThrow({
    where: { organizationId: tenant.organization.id },
    orderBy: { createdAt: "desc" },
  });
  const read = await api("GET", `/executions/${id}`, { key });
  expect(read.status, read.text).toBe(200);
  return read.body.execution;
}

/** One credit a token, read or written: every counted token shows in the charge. */
const A_CREDIT_A_TOKEN = { inputCreditsPerMillion: 1_000_000, outputCreditsPerMillion: 1_000_000, minimumCredits: 1 };

type Call = { model: string; provider: string; inputTokens: number; outputTokens: number; credits: number };

describe("the supervisor's routing call", () => {
  it("is recorded with its tokens and charged at its model's price", async () => {
    // No adviser: the built-in supervisor routes the message to one of the two members.
    // The reservation holds each call's ceiling (its output bound priced at a credit a token).
    const world = await publishedApp({ tenant: { credits: 100_000 } });
    const price = await api("PUT", "/model-prices/atrium-offline", { key: world.key, body: A_CREDIT_A_TOKEN });
    expect(price.status, price.text).toBe(200);
    const before = await credits(world.tenant);

    const turn = await converse(world.key, world.appId, { message: "How long do refunds take?" });
    expect(turn.status, turn.text).toBe(200);
    const execution = await latestExecution(world.tenant, world.key);
    const calls = execution.usage.calls as Call[];

    // The routing call first, then the one member it chose answering.
    expect(calls).toHaveLength(2);
    const [routing, answer] = calls;
    expect(routing).toMatchObject({ model: "atrium-offline", provider: "builtin", outcome: "succeeded" });
    expect(routing!.inputTokens).toBeGreaterThan(0);
    expect(routing!.outputTokens).toBeGreaterThan(0);
    expect(routing!.credits).toBe(routing!.inputTokens + routing!.outputTokens);
    expect(answer!.credits).toBe(answer!.inputTokens + answer!.outputTokens);

    // Charged once for both, the balance moved by the same integer, and the sums add up.
    const total = calls.reduce((sum, call) => sum + call.inputTokens + call.outputTokens, 0);
    expect(execution.credits).toBe(total);
    expect(await credits(world.tenant)).toBe(before - total);
    expect(execution.usage.inputTokens).toBe(routing!.inputTokens + answer!.inputTokens);

    const step = (execution.trace as { kind: string; name: string; inputTokens?: number }[]).find(
      (entry) => entry.kind === "supervisor" && entry.name === "routing",
    );
    expect(step).toMatchObject({ inputTokens: routing!.inputTokens, outputTokens: routing!.outputTokens });
  });

  it("adds nothing to an unpriced run: it still costs 1 credit", async () => {
    const world = await publishedApp();
    const before = await credits(world.tenant);
    const turn = await converse(world.key, world.appId, { message: "How long do refunds take?" });
    expect(turn.status, turn.text).toBe(200);
    const execution = await latestExecution(world.tenant, world.key);
    expect(execution.usage.calls.map((call: Call) => call.model)).toEqual(["atrium-offline", "atrium-offline"]);
    expect(execution.credits).toBe(1);
    expect(await credits(world.tenant)).toBe(before - 1);
  });
});
