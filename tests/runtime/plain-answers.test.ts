// A provider model's answer without tools (issue 53): the provider's stream read directly rather
// than through the AI SDK's `streamText`. What a user sees and what is stored stays as it was:
// the text, each call's tokens and outcome, a priced call's output capped at its reserved
// maximum, a provider that breaks off mid-answer, a canceled run. Through the REST door, against
// stand-in OpenAI-compatible and Anthropic providers.
import { afterAll, beforeAll, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.MODEL_PROVIDER_MODELS = "plain-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import type { EventSourceMessage } from "eventsource-parser";
import { getDb } from "@/server/db";
import { RUN_LIMITS } from "@/server/runtime/limits";
import { startFakeAnthropic, type FakeAnthropic } from "../fake-anthropic";
import { DEFAULT_FAKE_USAGE, startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { api, newOrganization, restHandler, type Tenant } from "../helpers";
import { addClaudeProvider, converse, credits, deltaText, plainApp, readEvents } from "../runtime-helpers";

const REPLY = "Refunds are paid within fourteen days of the request and shipping is not refunded";
let openai: FakeOpenAI;
let anthropic: FakeAnthropic;

beforeAll(async () => {
  openai = await startFakeOpenAI(() => REPLY, { tokenDelayMs: 25 });
  process.env.MODEL_PROVIDER_BASE_URL = openai.baseURL;
  anthropic = await startFakeAnthropic(() => "Claude says: refunds take fourteen days");
});
afterAll(async () => {
  await openai.close();
  await anthropic.close();
});

async function latestExecution(tenant: Tenant) {
  return getDb().execution.findFirstOrThrow({
    where: { organizationId: tenant.organization.id },
    orderBy: { createdAt: "desc" },
  });
}

function streamRequest(tenant: Tenant, appId: string, path = "/conversation", body?: unknown): Request {
  return new Request(`http://localhost/api/v1/apps/${appId}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${tenant.orgKey.secret}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

it("streams the text and records each call's tokens, the priced call capped at its reserved maximum", async () => {
  openai.reportUsage(DEFAULT_FAKE_USAGE);
  const tenant = await newOrganization({ credits: 5_000 });
  const appId = await plainApp(tenant);
  const price = { inputCreditsPerMillion: 0, outputCreditsPerMillion: 1_000_000, minimumCredits: 1 };
  expect((await api("PUT", "/model-prices/plain-model", { key: tenant.orgKey.secret, body: price })).status).toBe(200);

  const response = await restHandler()(
    streamRequest(tenant, appId, "/conversation", { message: "How long do refunds take?", stream: true }),
  );
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  expect(events.filter((event) => event.event === "delta").length).toBeGreaterThan(5);
  expect(deltaText(events)).toBe(REPLY);
  expect(events.at(-1)!.event).toBe("done");
  expect(JSON.parse(events.at(-1)!.data).reply).toBe(REPLY);

  const sent = openai.requests.at(-1)!;
  expect(sent).toMatchObject({ stream: true, tools: [], maxTokens: RUN_LIMITS.callOutputTokens });
  expect(sent.messages.at(-1)).toEqual({ role: "user", content: "How long do refunds take?" });
  const run = await latestExecution(tenant);
  expect(run.status).toBe("succeeded");
  expect(run.credits).toBe(5);
  expect(run.usage).toEqual({
    inputTokens: 10,
    outputTokens: 5,
    usageReported: true,
    calls: [
      {
        model: "plain-model",
        provider: "testai",
        inputTokens: 10,
        outputTokens: 5,
        usageReported: true,
        credits: 5,
        outcome: "succeeded",
      },
    ],
  });
  expect(await credits(tenant)).toBe(5_000 - 5);
  const stored = await getDb().conversationMessage.findMany({
    where: { conversation: { organizationId: tenant.organization.id } },
    orderBy: { createdAt: "asc" },
  });
  expect(stored.map((message) => [message.role, message.content])).toEqual([
    ["user", "How long do refunds take?"],
    ["assistant", REPLY],
  ]);
});

it("records a provider that reports no usage as unreported", async () => {
  openai.reportUsage(() => null);
  try {
    const tenant = await newOrganization();
    const appId = await plainApp(tenant);
    const response = await converse(tenant.orgKey.secret, appId, { message: "Refunds?" });
    expect(response.status).toBe(200);
    expect(response.body.reply).toBe(REPLY);
    const run = await latestExecution(tenant);
    expect(run.usage).toMatchObject({
      usageReported: false,
      calls: [{ model: "plain-model", usageReported: false, outcome: "succeeded", credits: 1 }],
    });
  } finally {
    openai.reportUsage(DEFAULT_FAKE_USAGE);
  }
});

it("records Anthropic's streamed answer and usage", async () => {
  const tenant = await newOrganization();
  const appId = await plainApp(tenant, await addClaudeProvider(tenant, anthropic));
  const response = await converse(tenant.orgKey.secret, appId, { message: "Refunds?" });
  expect(response.status, response.text).toBe(200);
  expect(response.body.reply).toBe("Claude says: refunds take fourteen days");
  expect(anthropic.requests.at(-1)).toMatchObject({ stream: true, tools: [] });
  const run = await latestExecution(tenant);
  expect(run.usage).toEqual({
    inputTokens: 10,
    outputTokens: 5,
    usageReported: true,
    calls: [
      {
        model: "claude/claude-test",
        provider: "claude",
        inputTokens: 10,
        outputTokens: 5,
        usageReported: true,
        credits: 1,
        outcome: "succeeded",
      },
    ],
  });
});

it.each(["drop", "errorChunk"] as const)(
  "a provider that breaks off mid-answer (%s): an error event provider_error after the deltas, not retried, the call failed",
  async (how) => {
    const tenant = await newOrganization();
    const appId = await plainApp(tenant);
    const before = await credits(tenant);
    const asked = openai.requests.length;
    openai.breakAfter(3, how);
    let events: EventSourceMessage[];
    try {
      const response = await restHandler()(
        streamRequest(tenant, appId, "/conversation", { message: "Refunds?", stream: true }),
      );
      expect(response.status).toBe(200);
      events = await readEvents(response);
    } finally {
      openai.breakAfter(null);
    }
    expect(deltaText(events)).toBe(
      REPLY.split(/(?<=\s)/)
        .slice(0, 3)
        .join(""),
    );
    expect(events.at(-1)!.event).toBe("error");
    expect(JSON.parse(events.at(-1)!.data).error.code).toBe("provider_error");
    // Output had streamed: no retry, no fallback.
    expect(openai.requests.length).toBe(asked + 1);
    const run = await latestExecution(tenant);
    expect(run.status).toBe("failed");
    expect(run.usage).toMatchObject({ calls: [{ model: "plain-model", outcome: "failed" }] });
    // A provider failure after output is billed (runtime/billed-run.ts).
    expect(run.credits).toBe(1);
    expect(await credits(tenant)).toBe(before - 1);
  },
);

it("a canceled run: an error event canceled, the call canceled, the answer kept as far as it got", async () => {
  const tenant = await newOrganization();
  const appId = await plainApp(tenant);
  const response = await restHandler()(
    streamRequest(tenant, appId, "/conversation", { message: "Refunds?", stream: true }),
  );
  const events: EventSourceMessage[] = [];
  const reading = readEvents(response).then((all) => events.push(...all));
  const run = await runningRun(tenant);
  // Wait for the first deltas, through a resume that drops.
  const seen = await readEvents(
    await restHandler()(streamRequest(tenant, appId, `/conversation/runs/${run.id}/events`)),
    3,
  );
  const executionId = JSON.parse(seen[0]!.data).execution_id as string;
  const canceled = await api("POST", `/apps/${appId}/conversation/runs/${executionId}/cancel`, {
    key: tenant.orgKey.secret,
  });
  expect(canceled.status).toBe(202);
  await reading;
  expect(events.at(-1)!.event).toBe("error");
  expect(JSON.parse(events.at(-1)!.data).error.code).toBe("canceled");
  expect(deltaText(events).length).toBeGreaterThan(0);
  expect(deltaText(events).length).toBeLessThan(REPLY.length);
  const settled = await latestExecution(tenant);
  expect(settled.status).toBe("canceled");
  expect(settled.usage).toMatchObject({ calls: [{ model: "plain-model", outcome: "canceled" }] });
  const kept = await getDb().conversationMessage.findMany({
    where: { conversation: { organizationId: tenant.organization.id } },
    orderBy: { createdAt: "asc" },
  });
  expect(kept.map((message) => message.role)).toEqual(["user", "assistant"]);
  expect(kept[1]!.content).toBe(deltaText(events));
});

/** The organization's one run, once it is stored. */
async function runningRun(tenant: Tenant) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const run = await getDb().conversationRun.findFirst({ where: { organizationId: tenant.organization.id } });
    if (run) return run;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("no run started");
}
