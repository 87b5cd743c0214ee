// An OpenAI-compatible provider's stream read from the node:http response itself when the request
// went through pinnedFetch (issue 53), as the server's providers' do: the text whole across reads
// that cut a character in two, the end of a provider that hangs up mid-answer or stops without
// finishing, the provider's connection closed when the reader stops early, the reply's bound, and
// the same Response read as an ordinary fetch body by any other caller.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.MODEL_PROVIDER_MODELS = "node-read-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
});

import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pinnedFetch } from "@/server/jobs/fetch-url";
import { RUN_LIMITS } from "@/server/runtime/limits";
import { openAICompatibleParts, type PlainPart } from "@/server/runtime/openai-stream";
import { collectGarbageEvery, within } from "../garbage";
import { newOrganization, restHandler } from "../helpers";
import { deltaText, plainApp, readEvents } from "../runtime-helpers";

const token = (content: string) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const FINISH = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 7, completion_tokens: 4 } })}\n\ndata: [DONE]\n\n`;

/** What the provider does with a streamed request: writes pieces of bytes, a pause between each, then ends or hangs up. */
type Script = { writes: Buffer[]; then: "end" | "destroy" | "hold" };
let script: Script = { writes: [], then: "end" };
let closed: Promise<void> = Promise.resolve();
/** The client port of each request the provider answered: the same port twice is one connection kept alive. */
const ports: (number | undefined)[] = [];
let server: http.Server;
let baseURL: string;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    ports.push(request.socket.remotePort);
    request.resume();
    request.on("end", async () => {
      closed = once(response, "close").then(() => undefined);
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const bytes of script.writes) {
        response.write(bytes);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      if (script.then === "end") response.end();
      else if (script.then === "destroy") response.destroy();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  process.env.MODEL_PROVIDER_BASE_URL = baseURL;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const utf8 = (text: string) => Buffer.from(text, "utf8");

function open(onPart: (part: PlainPart) => void) {
  return openAICompatibleParts(
    {
      baseURL,
      fetch: (input, init) => pinnedFetch(input, init, { purpose: "deployment" }),
      modelId: "m",
      system: "",
      turns: [{ role: "user", content: "How long do refunds take?" }],
      signal: new AbortController().signal,
    },
    onPart,
  );
}

async function partsOf(): Promise<{ parts: PlainPart[]; failure?: Error }> {
  const parts: PlainPart[] = [];
  try {
    await open((part) => parts.push(part));
  } catch (error) {
    return { parts, failure: error as Error };
  }
  return { parts };
}

describe("a provider's stream read from pinnedFetch's node:http response", () => {
  it("decodes a character cut between two reads whole, and ends with the call's usage", async () => {
    const bytes = utf8(token("Erstattung in 14 Tagen — garantiert ✓") + FINISH);
    const cut = bytes.indexOf(utf8("✓")) + 1;
    script = { writes: [bytes.subarray(0, cut), bytes.subarray(cut)], then: "end" };
    const { parts, failure } = await partsOf();
    expect(failure).toBeUndefined();
    expect(
      parts
        .filter((part) => part.type === "text")
        .map((part) => part.text)
        .join(""),
    ).toBe("Erstattung in 14 Tagen — garantiert ✓");
    expect(parts.at(-1)).toEqual({ type: "finish", usage: { inputTokens: 7, outputTokens: 4 }, finishReason: "stop" });
  });

  it("fails after the text already read when the provider hangs up mid-answer", async () => {
    script = { writes: [utf8(token("Refunds ")), utf8(token("take "))], then: "destroy" };
    const { parts, failure } = await partsOf();
    expect(parts).toEqual([
      { type: "text", text: "Refunds " },
      { type: "text", text: "take " },
    ]);
    expect(failure).toBeInstanceOf(Error);
  });

  it("ends without a finish reason when the provider closes the stream before finishing", async () => {
    script = { writes: [utf8(token("Refunds take"))], then: "end" };
    const { parts, failure } = await partsOf();
    expect(failure).toBeUndefined();
    expect(parts).toEqual([
      { type: "text", text: "Refunds take" },
      { type: "finish", usage: {}, finishReason: "other" },
    ]);
  });

  it("hangs up on the provider when its reader stops early, failing with what stopped it", async () => {
    script = { writes: [utf8(token("Refunds "))], then: "hold" };
    const stop = new Error("enough");
    const parts: PlainPart[] = [];
    const reading = open((part) => {
      parts.push(part);
      throw stop;
    });
    await expect(reading).rejects.toBe(stop);
    expect(parts).toEqual([{ type: "text", text: "Refunds " }]);
    await closed;
  });

  it("still stops a provider that stalls mid-answer at the call's time limit after a garbage collection", async () => {
    script = { writes: [utf8(token("Refunds "))], then: "hold" };
    const stopCollecting = collectGarbageEvery(20);
    const answered = pinnedFetch(
      `${baseURL}/chat/completions`,
      { method: "POST", body: "{}", signal: AbortSignal.timeout(300) },
      { purpose: "deployment" },
    )
      .then((response) => response.text())
      .catch((error: Error) => `failed: ${error.message}`);
    const outcome = await within(3_000, answered);
    stopCollecting();
    expect(outcome).toBe("failed: aborted");
  });

  it("is still an ordinary fetch body to any other caller", async () => {
    script = { writes: [utf8(token("Refunds ")), utf8(FINISH)], then: "end" };
    const response = await pinnedFetch(
      `${baseURL}/chat/completions`,
      { method: "POST", body: "{}" },
      {
        purpose: "deployment",
      },
    );
    expect(await response.text()).toBe(token("Refunds ") + FINISH);
  });

  it("frees the connection of a body nobody reads for the next request", async () => {
    script = { writes: [utf8(token("Refunds "))], then: "end" };
    const request = () =>
      pinnedFetch(`${baseURL}/chat/completions`, { method: "POST", body: "{}" }, { purpose: "deployment" });
    expect((await request()).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await (await request()).text()).toBe(token("Refunds "));
    expect(ports.at(-1)).toBe(ports.at(-2));
  });
});

describe("a streamed conversation whose provider is read from the node:http response", () => {
  const replyChars = RUN_LIMITS.replyChars;
  afterEach(() => {
    RUN_LIMITS.replyChars = replyChars;
  });

  /** A published app of one agent without tools on the operator's provider, streamed through the REST door. */
  async function stream() {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const appId = await plainApp(tenant, "node-read-model");
    const response = await restHandler()(
      new Request(`http://localhost/api/v1/apps/${appId}/conversation`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ message: "How long do refunds take?", stream: true }),
      }),
    );
    expect(response.status).toBe(200);
    return readEvents(response);
  }

  it("a provider that hangs up mid-answer: the deltas, then an error event provider_error", async () => {
    script = { writes: [utf8(token("Refunds ")), utf8(token("take "))], then: "destroy" };
    const events = await stream();
    expect(deltaText(events)).toBe("Refunds take ");
    expect(events.at(-1)!.event).toBe("error");
    expect(JSON.parse(events.at(-1)!.data).error.code).toBe("provider_error");
  });

  it("a reply past its bound: the deltas within it, then an error event run_limit_exceeded", async () => {
    RUN_LIMITS.replyChars = 40;
    script = {
      writes: Array.from({ length: 10 }, (_, i) => utf8(token(`word${i} `))),
      then: "end",
    };
    const events = await stream();
    expect(deltaText(events).length).toBeLessThanOrEqual(40);
    expect(deltaText(events).startsWith("word0 word1 ")).toBe(true);
    expect(events.at(-1)!.event).toBe("error");
    const { error } = JSON.parse(events.at(-1)!.data) as { error: { code: string; message: string } };
    expect(error.code).toBe("run_limit_exceeded");
    expect(error.message).toMatch(/reply/);
  });
});
