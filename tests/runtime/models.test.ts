// The model layer: the built-in offline model's answers, routing and grading, and provider
// models against a local OpenAI-compatible server (streamed and not).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/server/db";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI(
    (messages) => {
      const last = messages[messages.length - 1]!.content;
      if (last.includes("Members:")) return 'Sure: ["b"]';
      if (last.includes("Expected behaviour")) return '{"passed": false, "reason": "It did not apologise."}';
      return "Hello from the provider model";
    },
    // Its tokens trickle in as a provider's do: the tokens one read brings go on as one piece
    // (src/server/runtime/openai-stream.ts), so tokens written at once could arrive as one.
    { tokenDelayMs: 10 },
  );
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_API_KEY = "test-key";
  process.env.MODEL_PROVIDER_MODELS = "gpt-test, other-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
});

afterAll(async () => {
  await fake.close();
});

/** The pieces an answer hands on, in order. */
async function collect(answer: (onText: (text: string) => void) => Promise<void>): Promise<string[]> {
  const pieces: string[] = [];
  await answer((piece) => pieces.push(piece));
  return pieces;
}

describe("the built-in offline model", () => {
  it("answers with the best-matching sentences of the knowledge and cites them", async () => {
    const { offlineModel } = await import("@/server/runtime/offline-model");
    const pieces = await collect((onText) =>
      offlineModel.answer(
        {
          system: "",
          history: [],
          message: "How long do refunds take?",
          knowledge: [
            { title: "Refund policy", text: "Refunds are paid within 14 days. Shipping is free over 50 euros." },
            { title: "Opening hours", text: "We open at nine." },
          ],
        },
        onText,
      ),
    );
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join("")).toBe("Refunds are paid within 14 days.");
  });

  it("says so honestly when its knowledge has nothing", async () => {
    const { offlineAnswer } = await import("@/server/runtime/offline-model");
    expect(offlineAnswer({ message: "weather?", knowledge: [] })).toBe(
      "I can only answer from this assistant's knowledge, and it doesn't have any yet.",
    );
    expect(
      offlineAnswer({ message: "weather tomorrow?", knowledge: [{ title: "t", text: "Refunds take 14 days." }] }),
    ).toBe("I couldn't find anything about that in what I know. Try asking in other words.");
  });

  it("routes to the members whose description matches, else to the first", async () => {
    const { offlineRoute } = await import("@/server/runtime/offline-model");
    const candidates = [
      { id: "billing", name: "Billing agent", description: "Invoices, refunds and payments" },
      { id: "tech", name: "Support agent", description: "Technical problems and outages" },
    ];
    expect(offlineRoute("I want a refund for my invoice", candidates)).toEqual(["billing"]);
    expect(offlineRoute("The app has an outage", candidates)).toEqual(["tech"]);
    expect(offlineRoute("hello", candidates)).toEqual(["billing"]);
  });

  it("grades by the expected behaviour's key terms", async () => {
    const { offlineGrade } = await import("@/server/runtime/offline-model");
    expect(offlineGrade("Refunds are paid within 14 days.", "mentions refunds within 14 days").passed).toBe(true);
    const failed = offlineGrade("We open at nine.", "mentions the refund deadline");
    expect(failed.passed).toBe(false);
    expect(failed.reason).toContain("refund");
  });
});

describe("provider models", () => {
  it("are listed after the built-in model", async () => {
    const { defaultModels } = await import("@/server/runtime/models");
    expect(defaultModels()).toEqual([
      {
        id: "atrium-offline",
        name: "Atrium offline (extractive, no network)",
        provider: "builtin",
        acceptsImages: false,
      },
      { id: "gpt-test", name: "gpt-test", provider: "testai", acceptsImages: false },
      { id: "other-model", name: "other-model", provider: "testai", acceptsImages: false },
    ]);
  });

  it("stream an answer token by token, with the system prompt and knowledge sent upstream", async () => {
    const { modelFor } = await import("@/server/runtime/models");
    const model = await modelFor(getDb(), randomUUID(), "gpt-test");
    expect(model.provider).toBe("testai");
    const pieces = await collect((onText) =>
      model.answer(
        {
          system: "You are kind.",
          history: [
            { role: "user", content: "earlier" },
            { role: "assistant", content: "yes" },
          ],
          message: "Hi",
          knowledge: [{ title: "Doc", text: "Fact." }],
        },
        onText,
      ),
    );
    expect(pieces.join("")).toBe("Hello from the provider model");
    expect(pieces.length).toBeGreaterThan(1);
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({ model: "gpt-test", stream: true });
    expect(request.messages[0]!.content).toContain("You are kind.");
    expect(request.messages[0]!.content).toContain("Fact.");
    expect(request.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
  });

  it("route and grade with JSON replies (not streamed)", async () => {
    const { modelFor } = await import("@/server/runtime/models");
    const model = await modelFor(getDb(), randomUUID(), "gpt-test");
    const route = await model.route({
      message: "m",
      instructions: "",
      candidates: [
        { id: "a", name: "A", description: "" },
        { id: "b", name: "B", description: "" },
      ],
    });
    expect(route).toEqual(["b"]);
    expect(fake.requests.at(-1)!.stream).toBe(false);
    expect(await model.grade({ input: "i", output: "o", expectedBehavior: "apologises" })).toEqual({
      passed: false,
      reason: "It did not apologise.",
    });
  });

  it("surface an upstream failure as an error", async () => {
    const { modelFor } = await import("@/server/runtime/models");
    const model = await modelFor(getDb(), randomUUID(), "gpt-test");
    fake.failWith(500);
    try {
      await expect(
        collect((onText) => model.answer({ system: "", history: [], message: "Hi", knowledge: [] }, onText)),
      ).rejects.toThrow();
    } finally {
      fake.failWith(null);
    }
  });

  it("fall back to the built-in model for an unknown id", async () => {
    const { modelFor } = await import("@/server/runtime/models");
    expect((await modelFor(getDb(), randomUUID(), "nope")).id).toBe("atrium-offline");
  });
});
