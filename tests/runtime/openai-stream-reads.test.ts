// An OpenAI-compatible provider's stream, read by the plain-answer path (issue 53): the tokens one
// read of the connection brings go on as one piece of text, in order and whole; an event cut
// between two reads is joined; a text before a mid-stream error still goes out before the error.
import { describe, expect, it } from "vitest";
import { openAICompatibleParts, type PlainPart } from "@/server/runtime/openai-stream";

const token = (content: string) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const FINISH = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 7, completion_tokens: 4 } })}\n\ndata: [DONE]\n\n`;

/** The parts of a reply whose connection gives `reads`, one chunk each. */
async function partsOf(reads: string[]): Promise<{ parts: PlainPart[]; failure?: Error }> {
  const parts: PlainPart[] = [];
  const reading = openAICompatibleParts(
    {
      baseURL: "http://provider.invalid/v1",
      fetch: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              for (const read of reads) controller.enqueue(new TextEncoder().encode(read));
              controller.close();
            },
          }),
          { status: 200, headers: { "content-type": "text/event-stream" } },
        ),
      modelId: "m",
      system: "",
      turns: [{ role: "user", content: "How long do refunds take?" }],
      signal: new AbortController().signal,
    },
    (part) => parts.push(part),
  );
  try {
    await reading;
  } catch (error) {
    return { parts, failure: error as Error };
  }
  return { parts };
}

describe("a plain answer's provider stream", () => {
  it("passes on the tokens of one read as one text, in order, then the call's end", async () => {
    const { parts } = await partsOf([token("Refunds ") + token("take ") + token("14 days"), token(".") + FINISH]);
    expect(parts).toEqual([
      { type: "text", text: "Refunds take 14 days" },
      { type: "text", text: "." },
      { type: "finish", usage: { inputTokens: 7, outputTokens: 4 }, finishReason: "stop" },
    ]);
  });

  it("joins an event cut between two reads", async () => {
    const cut = token("Refunds ");
    const { parts } = await partsOf([cut.slice(0, 20), cut.slice(20) + token("take 14 days."), FINISH]);
    expect(parts.filter((part) => part.type === "text")).toEqual([{ type: "text", text: "Refunds take 14 days." }]);
  });

  it("sends the text read before a mid-stream error, then fails", async () => {
    const { parts, failure } = await partsOf([
      token("Refunds ") + token("take ") + `data: ${JSON.stringify({ error: { message: "overloaded" } })}\n\n`,
    ]);
    expect(parts).toEqual([{ type: "text", text: "Refunds take " }]);
    expect(failure?.message).toBe("overloaded");
  });
});
