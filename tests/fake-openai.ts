// A local HTTP server speaking the OpenAI chat-completions protocol (JSON and streaming), so
// provider-model code runs for real without a network. Replies come from `reply(messages)`;
// `/embeddings` answers with `options.embed` (see tests/fake-embeddings.ts) when given. Every
// reply reports its usage (10 prompt and 5 completion tokens unless `reportUsage` says otherwise),
// streamed ones in a last chunk when the request asks for it (`stream_options.include_usage`).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatMessage {
  role: string;
  content: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** What the fake model says: text, or calls of the tools the request offered. */
export type FakeReply = string | { toolCalls: { name: string; args: Record<string, unknown> }[] };

export interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: ChatMessage[];
  tools?: { type: "function"; function: { name: string; description?: string; parameters: Record<string, unknown> } }[];
  tool_choice?: unknown;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
}

/** The usage a reply reports: its tokens, or null to report none. */
export type FakeUsage = (request: ChatRequest, reply: FakeReply) => { input: number; output: number } | null;
export const DEFAULT_FAKE_USAGE: FakeUsage = () => ({ input: 10, output: 5 });

export interface FakeOpenAI {
  baseURL: string;
  requests: {
    model: string;
    stream: boolean;
    messages: ChatMessage[];
    authorization?: string;
    traceparent?: string;
    tools: string[];
    toolChoice?: unknown;
    /** The request's output cap (`max_tokens`), when it set one. */
    maxTokens?: number;
  }[];
  /** The inputs of each embeddings request, in order. */
  embeddingRequests: string[][];
  /** Makes the next requests fail with this HTTP status. */
  failWith(status: number | null): void;
  /** Answers the next chat requests, one each, with these failures (a 429's `retryAfter` in its header) before replying again. */
  failNext(failures: { status: number; retryAfter?: string }[]): void;
  /**
   * Makes the next streamed text replies break off after this many tokens, until null: the
   * connection dropped, or (`errorChunk`) an `{ error }` chunk sent and the stream ended.
   */
  breakAfter(tokens: number | null, how?: "drop" | "errorChunk"): void;
  /** Makes the next requests go unanswered (a provider that hangs), until turned off. */
  hang(on: boolean): void;
  /** Resolves once a request left unanswered has arrived, and then once its caller hangs up on it. */
  hangingCall(): { asked: Promise<void>; hungUp: Promise<void> };
  /** What the next replies report as their usage. */
  reportUsage(usage: FakeUsage): void;
  close(): Promise<void>;
}

export async function startFakeOpenAI(
  reply: (messages: ChatMessage[], request: ChatRequest) => FakeReply,
  options: { tokenDelayMs?: number; embed?: (text: string) => number[] } = {},
): Promise<FakeOpenAI> {
  const requests: FakeOpenAI["requests"] = [];
  const embeddingRequests: string[][] = [];
  let failure: number | null = null;
  const queuedFailures: { status: number; retryAfter?: string }[] = [];
  let hanging = false;
  let breakingAfter: number | null = null;
  let breakingHow: "drop" | "errorChunk" = "drop";
  let usageOf: FakeUsage = DEFAULT_FAKE_USAGE;
  const hung: http.ServerResponse[] = [];
  const hangingCalls: { asked: () => void; hungUp: () => void }[] = [];
  const server = http.createServer((req, res) => {
    void handle(req, res);
  });
  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    let raw = "";
    req.on("data", (chunk: Buffer) => (raw += chunk.toString()));
    req.on("end", async () => {
      if (req.method === "POST" && options.embed && req.url?.endsWith("/embeddings")) {
        answerEmbeddings(JSON.parse(raw), res, options.embed);
        return;
      }
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw) as ChatRequest;
      requests.push({
        model: body.model,
        stream: body.stream === true,
        messages: body.messages,
        authorization: req.headers.authorization,
        traceparent: req.headers.traceparent as string | undefined,
        tools: (body.tools ?? []).map((t) => t.function.name),
        toolChoice: body.tool_choice,
        maxTokens: body.max_tokens,
      });
      if (hanging) {
        hung.push(res);
        const watcher = hangingCalls.shift();
        if (watcher) {
          watcher.asked();
          res.once("close", watcher.hungUp);
        }
        return;
      }
      const queued = queuedFailures.shift();
      if (failure || queued) {
        const status = queued?.status ?? failure!;
        const headers = {
          "content-type": "application/json",
          ...(queued?.retryAfter ? { "retry-after": queued.retryAfter } : {}),
        };
        res
          .writeHead(status, headers)
          .end(JSON.stringify({ error: { message: "upstream is down", type: "server_error" } }));
        return;
      }
      const answer = reply(body.messages, body);
      const base = { id: "chatcmpl-test", created: 1_700_000_000, model: body.model };
      const counts = usageOf(body, answer);
      const usage = counts
        ? {
            usage: {
              prompt_tokens: counts.input,
              completion_tokens: counts.output,
              total_tokens: counts.input + counts.output,
            },
          }
        : {};
      // The last chunk of a stream that asked for usage: no choices, the usage.
      const usageChunk = () =>
        body.stream_options?.include_usage && counts
          ? `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], ...usage })}\n\n`
          : "";
      if (typeof answer !== "string") {
        const calls = answer.toolCalls.map((call, index) => ({
          id: `call_${requests.length}_${index}`,
          type: "function",
          function: { name: call.name, arguments: JSON.stringify(call.args) },
        }));
        if (!body.stream) {
          res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({
              ...base,
              object: "chat.completion",
              choices: [
                {
                  index: 0,
                  message: { role: "assistant", content: null, tool_calls: calls },
                  finish_reason: "tool_calls",
                },
              ],
              ...usage,
            }),
          );
          return;
        }
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        const chunk = (delta: object, finish: string | null) =>
          `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        res.write(chunk({ role: "assistant", tool_calls: calls.map((call, index) => ({ index, ...call })) }, null));
        res.write(chunk({}, "tool_calls"));
        res.end(`${usageChunk()}data: [DONE]\n\n`);
        return;
      }
      const text = answer;
      if (!body.stream) {
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            ...base,
            object: "chat.completion",
            choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
            ...usage,
          }),
        );
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: "assistant", content: "" }, null));
      for (const [index, token] of text.split(/(?<=\s)/).entries()) {
        if (res.destroyed) return;
        if (index === breakingAfter && breakingHow === "drop") return void res.destroy();
        if (index === breakingAfter)
          return void res.end(
            `data: ${JSON.stringify({ error: { message: "overloaded", type: "server_error" } })}\n\n`,
          );
        res.write(chunk({ content: token }, null));
        if (options.tokenDelayMs) await new Promise((resolve) => setTimeout(resolve, options.tokenDelayMs));
      }
      res.write(chunk({}, "stop"));
      res.end(`${usageChunk()}data: [DONE]\n\n`);
    });
  }
  function answerEmbeddings(
    body: { model: string; input: string | string[] },
    res: http.ServerResponse,
    embed: (text: string) => number[],
  ) {
    const input = Array.isArray(body.input) ? body.input : [body.input];
    embeddingRequests.push(input);
    if (failure) {
      res
        .writeHead(failure, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "embeddings are down", type: "server_error" } }));
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        object: "list",
        model: body.model,
        data: input.map((text, index) => ({ object: "embedding", index, embedding: embed(text) })),
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      }),
    );
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    embeddingRequests,
    failWith: (status) => (failure = status),
    failNext: (failures) => void queuedFailures.push(...failures),
    reportUsage: (usage) => (usageOf = usage),
    breakAfter: (tokens, how = "drop") => {
      breakingAfter = tokens;
      breakingHow = how;
    },
    hangingCall: () => {
      const watcher = { asked: () => {}, hungUp: () => {} };
      const asked = new Promise<void>((resolve) => (watcher.asked = resolve));
      const hungUp = new Promise<void>((resolve) => (watcher.hungUp = resolve));
      hangingCalls.push(watcher);
      return { asked, hungUp };
    },
    hang: (on) => {
      hanging = on;
      if (!on) for (const res of hung.splice(0)) res.destroy();
    },
    close: () => {
      for (const res of hung.splice(0)) res.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
