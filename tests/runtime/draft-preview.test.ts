// The editors' draft preview: a message runs the DRAFT (published or not) as a test run would,
// 1 credit each, recorded as a test execution with its trace; the live version is not used.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  // The fake provider listens on 127.0.0.1.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import { getDb } from "@/server/db";
import { createModelProvider } from "@/server/services/org/model-providers";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { create, patchDraft, publish, VALID_NODES } from "../builder-helpers";
import { newOrganization, signInCookie, trpc, trpcErrorCode, type Tenant } from "../helpers";
import { credits } from "../runtime-helpers";

let fake: FakeOpenAI;

beforeAll(async () => {
  // The fake model says which instructions it was given, so an answer shows which draft ran.
  fake = await startFakeOpenAI((messages) => {
    const system = messages.find((message) => message.role === "system")?.content ?? "";
    const rule = /Speak (\w+)\./.exec(system)?.[1] ?? "plainly";
    return `Answering ${rule} after ${messages.filter((message) => message.role === "user").length} question(s).`;
  });
});
afterAll(() => fake.close());

async function agentOnProvider(tenant: Tenant, systemInstruction: string) {
  await createModelProvider(getDb(), tenant.operator, {
    slug: "acme",
    kind: "openai-compatible",
    name: "Acme",
    baseUrl: fake.baseURL,
    apiKey: "sk-x",
    models: [{ id: "chat", kind: "chat" }],
  });
  return create(tenant.orgKey.secret, "agents", { name: "Preview agent", model: "acme/chat", systemInstruction });
}

describe("draft preview", () => {
  it("answers with the draft's changed instructions, with history, 1 credit a message, as test executions", async () => {
    const tenant = await newOrganization();
    const agent = await agentOnProvider(tenant, "Speak formally.");
    await publish(tenant.orgKey.secret, "agents", agent.id);
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const before = await credits(tenant);

    const first = await trpc(
      "mutation",
      "runtime.agentTests.preview",
      { id: agent.id, message: "Hello?", history: [] },
      { cookie },
    );
    expect(first.status).toBe(200);
    // What the builder is shown it cost: the provider's reported tokens (10 in, 5 out) and the credit.
    expect(first.body.result.data).toMatchObject({
      reply: "Answering formally after 1 question(s).",
      error: null,
      credits: 1,
      inputTokens: 10,
      outputTokens: 5,
    });

    expect(
      (await patchDraft(tenant.orgKey.secret, "agents", agent.id, { systemInstruction: "Speak cheerfully." })).status,
    ).toBe(200);
    const history = [
      { role: "user", content: "Hello?" },
      { role: "assistant", content: first.body.result.data.reply },
    ];
    const second = await trpc(
      "mutation",
      "runtime.agentTests.preview",
      { id: agent.id, message: "And now?", history },
      { cookie },
    );
    expect(second.body.result.data.reply).toBe("Answering cheerfully after 2 question(s).");

    expect(await credits(tenant)).toBe(before - 2);
    const executions = await getDb().execution.findMany({
      where: { organizationId: tenant.organization.id, itemId: agent.id },
      orderBy: { createdAt: "asc" },
    });
    expect(executions.map((e) => [e.kind, e.versionId, e.credits, e.input])).toEqual([
      ["test", null, 1, "Hello?"],
      ["test", null, 1, "And now?"],
    ]);
    expect(second.body.result.data.executionId).toBe(executions[1]!.id);
  });

  it("runs an unpublished flow's draft with the message as its input", async () => {
    const tenant = await newOrganization();
    const flow = await create(tenant.orgKey.secret, "flows", {
      inputs: [{ key: "question", label: "Question", type: "text", required: true }],
      nodes: [
        { id: "start", type: "trigger_start", data: {} },
        { id: "echo", type: "template", data: { template: "You asked: {{inputs.question}}" } },
        { id: "done", type: "output", data: { value: "{{nodes.echo.output}}" } },
      ],
    });
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const answer = await trpc(
      "mutation",
      "runtime.flowTests.preview",
      { id: flow.id, message: "where is my parcel", history: [] },
      { cookie },
    );
    expect(answer.body.result.data).toMatchObject({ reply: "You asked: where is my parcel", error: null });
  });

  it("refuses without credits, for another organization, and over its bounds, running and charging nothing", async () => {
    const tenant = await newOrganization({ credits: 0 });
    const flow = await create(tenant.orgKey.secret, "flows", { nodes: VALID_NODES });
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const broke = await trpc(
      "mutation",
      "runtime.flowTests.preview",
      { id: flow.id, message: "hi", history: [] },
      { cookie },
    );
    expect({ status: broke.status, code: trpcErrorCode(broke) }).toEqual({ status: 402, code: "insufficient_credits" });

    const other = await newOrganization();
    const otherCookie = await signInCookie(other.owner.email, other.owner.password);
    const foreign = await trpc(
      "mutation",
      "runtime.flowTests.preview",
      { id: flow.id, message: "hi", history: [] },
      { cookie: otherCookie },
    );
    expect(trpcErrorCode(foreign)).toBe("not_found");

    const longHistory = Array.from({ length: 41 }, () => ({ role: "user", content: "again" }));
    const tooLong = await trpc(
      "mutation",
      "runtime.flowTests.preview",
      { id: flow.id, message: "hi", history: longHistory },
      { cookie: otherCookie },
    );
    expect({ status: tooLong.status, code: trpcErrorCode(tooLong) }).toEqual({ status: 400, code: "invalid_request" });
    expect(await getDb().execution.count({ where: { itemId: flow.id } })).toBe(0);
  });
});
