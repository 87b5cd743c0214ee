// An MCP client that hangs up during a tool call stops the run it started: through the listener
// `npm start` serves (mcp-helpers.ts), the SDK's own client closes while the app's provider is
// still answering, with garbage collected meanwhile (the door hands the run only its Request's
// signal).
import { vi } from "vitest";

vi.hoisted(() => {
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  // The fake provider listens on 127.0.0.1.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { createModelProvider } from "@/server/services/org/model-providers";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { collectGarbageEvery, within } from "../garbage";
import { newOrganization } from "../helpers";
import { mcpSuite } from "../mcp-helpers";
import { oneAgentApp } from "../runtime-helpers";

const { connect } = mcpSuite();
let provider: FakeOpenAI;

beforeAll(async () => {
  provider = await startFakeOpenAI(() => "never sent");
  provider.hang(true);
});
afterAll(() => provider.close());

describe("an MCP client that hangs up during converse_with_app", () => {
  it("stops the app's call to its provider, even after garbage collections", async () => {
    const tenant = await newOrganization();
    await createModelProvider(getDb(), tenant.operator, {
      slug: "slow",
      kind: "openai-compatible",
      name: "Slow AI",
      baseUrl: provider.baseURL,
      apiKey: "sk-slow",
      models: [{ id: "slow-chat", kind: "chat" }],
    });
    const appId = await oneAgentApp(
      tenant.orgKey.secret,
      { name: "Slow agent", model: "slow/slow-chat" },
      { name: "Slow app", orchestrationMode: "sequential" },
    );
    const client = await connect(tenant.personalKey.secret);
    const providerCall = provider.hangingCall();
    const call = client.callTool({ name: "converse_with_app", arguments: { appId, message: "Hello?" } });
    call.catch(() => {});
    await providerCall.asked;
    const stopCollecting = collectGarbageEvery(5);
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await client.close();
      expect(
        await within(
          3000,
          providerCall.hungUp.then(() => "hung up"),
        ),
      ).toBe("hung up");
    } finally {
      stopCollecting();
    }
  });
});
