// A local HTTP server speaking the OpenAI chat-completions protocol (JSON and streaming), so
// provider-model code runs for real without a network. Replies come from `reply(messages)`.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatMessage {
  role: string;
  content: string;
}

export interface FakeOpenAI {
  baseURL: string;
  requests: { model: string; stream: boolean; messages: ChatMessage[] }[];
  /** Makes the next requests fail with this HTTP status. */
  failWith(status: number | null): void;
  /** Makes the next requests go unanswered (a provider that hangs), until turned off. */
  hang(on: boolean): void;
  close(): Promise<void>;
}

export async function startFakeOpenAI(reply: (messages: ChatMessage[]) => string, options: { tokenDelayMs?: number } = {}): Promise<FakeOpenAI> {
  const requests: FakeOpenAI["requests"] = [];
  let failure: number | null = null;
  let hanging = false;
  const hung: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    void handle(req, res);
  });
  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    let raw = "";
    req.on("data", (chunk: Buffer) => (raw += chunk.toString()));
    req.on("end", async () => {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw) as { model: string; stream?: boolean; messages: ChatMessage[] };
      requests.push({ model: body.model, stream: body.stream === true, messages: body.messages });
      if (hanging) {
        hung.push(res);
        return;
      }
      if (failure) {
        res.writeHead(failure, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "upstream is down", type: "server_error" } }));
        return;
      }
      const text = reply(body.messages);
      const base = { id: "chatcmpl-test", created: 1_700_000_000, model: body.model };
      if (!body.stream) {
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            ...base,
            object: "chat.completion",
            choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          }),
        );
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: "assistant", content: "" }, null));
      for (const token of text.split(/(?<=\s)/)) {
        if (res.destroyed) return;
        res.write(chunk({ content: token }, null));
        if (options.tokenDelayMs) await new Promise((resolve) => setTimeout(resolve, options.tokenDelayMs));
      }
      res.write(chunk({}, "stop"));
      res.end("data: [DONE]\n\n");
    });
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    failWith: (status) => (failure = status),
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
