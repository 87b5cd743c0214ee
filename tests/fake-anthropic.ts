// A local HTTP server speaking the Anthropic Messages API (`POST /v1/messages`, JSON and
// streaming, `tool_use` blocks out and `tool_result` blocks in), so an organization provider of
// kind anthropic runs for real through @ai-sdk/anthropic without a network.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_FAKE_USAGE, type FakeReply, type FakeUsage } from "./fake-openai";

type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | {
      type: "tool_result";
      tool_use_id: string;
      content: string | { type: "text"; text: string }[];
      is_error?: boolean;
    };

export interface AnthropicMessage {
  role: "user" | "assistant";
  content: string | Block[];
}

export interface MessagesRequest {
  model: string;
  stream?: boolean;
  system?: string | { type: "text"; text: string }[];
  messages: AnthropicMessage[];
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
  tool_choice?: unknown;
}

export interface FakeAnthropic {
  baseURL: string;
  requests: {
    model: string;
    stream: boolean;
    messages: AnthropicMessage[];
    apiKey?: string;
    version?: string;
    tools: string[];
  }[];
  /** Makes the next requests fail with this HTTP status (an Anthropic error body). */
  failWith(status: number | null): void;
  /** What the next replies report as their usage (10 input and 5 output tokens unless told otherwise). */
  reportUsage(usage: (request: MessagesRequest, reply: FakeReply) => ReturnType<FakeUsage>): void;
  close(): Promise<void>;
}

/** The text of a message: its string, or its text and tool-result blocks joined. */
export function textOf(message: AnthropicMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((block) => {
      if (block.type === "text") return block.text;
      if (block.type === "tool_result")
        return typeof block.content === "string" ? block.content : block.content.map((part) => part.text).join("");
      return "";
    })
    .join("");
}

/** The results of the tool calls the request hands back, in order. */
export function toolResults(messages: AnthropicMessage[]): string[] {
  return messages.flatMap((message) =>
    typeof message.content === "string"
      ? []
      : message.content
          .filter((block) => block.type === "tool_result")
          .map((block) => textOf({ role: "user", content: [block] })),
  );
}

export async function startFakeAnthropic(
  reply: (messages: AnthropicMessage[], request: MessagesRequest) => FakeReply,
): Promise<FakeAnthropic> {
  const requests: FakeAnthropic["requests"] = [];
  let failure: number | null = null;
  let usageOf: (request: MessagesRequest, reply: FakeReply) => ReturnType<FakeUsage> = (request, reply) =>
    DEFAULT_FAKE_USAGE(request as never, reply);
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk: Buffer) => (raw += chunk.toString()));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/messages")) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw) as MessagesRequest;
      requests.push({
        model: body.model,
        stream: body.stream === true,
        messages: body.messages,
        apiKey: req.headers["x-api-key"] as string | undefined,
        version: req.headers["anthropic-version"] as string | undefined,
        tools: (body.tools ?? []).map((t) => t.name),
      });
      if (failure) {
        res
          .writeHead(failure, { "content-type": "application/json" })
          .end(JSON.stringify({ type: "error", error: { type: "api_error", message: "upstream is down" } }));
        return;
      }
      const answer = reply(body.messages, body);
      const content: Block[] =
        typeof answer === "string"
          ? [{ type: "text", text: answer }]
          : answer.toolCalls.map((call, index) => ({
              type: "tool_use",
              id: `toolu_${requests.length}_${index}`,
              name: call.name,
              input: call.args,
            }));
      const stopReason = typeof answer === "string" ? "end_turn" : "tool_use";
      const message = { id: `msg_${requests.length}`, type: "message", role: "assistant", model: body.model };
      const counts = usageOf(body, answer);
      if (!body.stream) {
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            ...message,
            content,
            stop_reason: stopReason,
            stop_sequence: null,
            ...(counts ? { usage: { input_tokens: counts.input, output_tokens: counts.output } } : {}),
          }),
        );
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const send = (data: { type: string } & Record<string, unknown>) =>
        res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
      send({
        type: "message_start",
        message: {
          ...message,
          content: [],
          stop_reason: null,
          ...(counts ? { usage: { input_tokens: counts.input, output_tokens: 0 } } : {}),
        },
      });
      content.forEach((block, index) => {
        if (block.type === "text") {
          send({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
          for (const token of block.text.split(/(?<=\s)/))
            send({ type: "content_block_delta", index, delta: { type: "text_delta", text: token } });
        } else if (block.type === "tool_use") {
          send({
            type: "content_block_start",
            index,
            content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
          });
          send({
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
          });
        }
        send({ type: "content_block_stop", index });
      });
      send({
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null },
        ...(counts ? { usage: { output_tokens: counts.output } } : {}),
      });
      send({ type: "message_stop" });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    failWith: (status) => (failure = status),
    reportUsage: (usage) => (usageOf = usage),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
