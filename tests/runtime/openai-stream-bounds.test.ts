// A provider's refusal is read only up to a bound: a 10 MB error body neither fills the server's
// memory nor reaches the recorded error whole. Nor does a reply that never ends its event.
import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { MAX_EVENT_CHARS, MAX_REFUSAL_BODY_BYTES, openAICompatibleParts } from "@/server/runtime/openai-stream";

describe("an OpenAI-compatible provider's refusal", () => {
  it("is read up to its bound, keeping the status and the start of the body", async () => {
    const huge = `{"error":{"message":"overloaded"}}${" ".repeat(10 * 1024 * 1024)}`;
    const refusal = await openAICompatibleParts(
      {
        baseURL: "http://provider.invalid/v1",
        fetch: async () => new Response(huge, { status: 503, statusText: "Service Unavailable" }),
        modelId: "m",
        system: "",
        turns: [{ role: "user", content: "Hello" }],
        signal: new AbortController().signal,
      },
      () => {},
    ).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(APICallError);
    const error = refusal as APICallError;
    expect(error.statusCode).toBe(503);
    expect(error.isRetryable).toBe(true);
    expect(error.responseBody!.length).toBeLessThanOrEqual(MAX_REFUSAL_BODY_BYTES);
    expect(error.responseBody!.startsWith('{"error":{"message":"overloaded"}}')).toBe(true);
  });
});

describe("an OpenAI-compatible provider's reply", () => {
  it("fails once it has sent more than its bound without ending an event, and hangs up", async () => {
    const chunk = `data: {"choices":[{"delta":{"content":"${"x".repeat(64 * 1024)}`;
    let sent = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.length;
        controller.enqueue(new TextEncoder().encode(chunk));
      },
      cancel() {
        cancelled = true;
      },
    });
    const parts: unknown[] = [];
    const failure = await openAICompatibleParts(
      {
        baseURL: "http://provider.invalid/v1",
        fetch: async () => new Response(endless, { status: 200, headers: { "content-type": "text/event-stream" } }),
        modelId: "m",
        system: "",
        turns: [{ role: "user", content: "Hello" }],
        signal: new AbortController().signal,
      },
      (part) => parts.push(part),
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/without ending an event/);
    expect(parts).toEqual([]);
    expect(sent).toBeLessThan(MAX_EVENT_CHARS + 3 * chunk.length);
    expect(cancelled).toBe(true);
  });
});
