// An OpenAI-compatible provider's streamed chat completion, for an answer without tools or images
// (issue 53): the request the AI SDK's provider sends, its reply read through one SSE parser and
// `JSON.parse`, with no web-stream layers and no schema validation of each chunk (the provider's
// `doStream` spends most of a long stream's time there). A refusal is the SDK's `APICallError`
// with the status and headers, as from the provider, so retries and fallbacks read it the same.
import type { IncomingMessage } from "node:http";
import { finished } from "node:stream";
import { APICallError } from "@ai-sdk/provider";
import { createParser } from "eventsource-parser";
import { groupedDigits } from "@/lib/digits";
import { takeNodeBody } from "@/server/jobs/fetch-url";
import type { ReportedUsage } from "./model-types";

/** What a plain answer's stream gives: a piece of text, or the call's end with its usage. */
export type PlainPart = { type: "text"; text: string } | { type: "finish"; usage: ReportedUsage; finishReason: string };

export interface ChatCompletionRequest {
  baseURL: string;
  apiKey?: string;
  fetch: typeof globalThis.fetch;
  modelId: string;
  system: string;
  turns: { role: "user" | "assistant"; content: string }[];
  maxOutputTokens?: number;
  signal: AbortSignal;
}

interface CompletionChunk {
  choices?: { delta?: { content?: string | null } | null; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number | null; completion_tokens?: number | null } | null;
  error?: { message?: string };
}

/** The provider's retryable statuses, as the SDK marks them. */
function retryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The provider's error message (`{ error: { message } }`), else the status text. */
function refusalMessage(body: string, statusText: string): string {
  try {
    const message = (JSON.parse(body) as CompletionChunk).error?.message;
    if (typeof message === "string") return message;
  } catch {
    // Not JSON: the status says it.
  }
  return statusText;
}

/**
 * The most characters a provider's reply may send without ending an event: a chunk is a few
 * hundred, and the parser keeps an unended event whole, so an endless line would fill the memory.
 */
export const MAX_EVENT_CHARS = 1024 * 1024;

/** A refusal's body is read up to this many bytes: the message is near its start, and a provider may send any size. */
export const MAX_REFUSAL_BODY_BYTES = 64 * 1024;

async function boundedText(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const pieces: Uint8Array[] = [];
  let size = 0;
  while (size < MAX_REFUSAL_BODY_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    pieces.push(value);
    size += value.byteLength;
  }
  void reader.cancel().catch(() => undefined);
  return Buffer.concat(pieces).subarray(0, MAX_REFUSAL_BODY_BYTES).toString("utf8");
}

/** Sends the request; once the provider answers 200, hands `onPart` each part as it is read, the last a `finish`. */
export async function openAICompatibleParts(
  request: ChatCompletionRequest,
  onPart: (part: PlainPart) => void,
): Promise<void> {
  const url = `${request.baseURL.replace(/\/$/, "")}/chat/completions`;
  const body = {
    model: request.modelId,
    ...(request.maxOutputTokens !== undefined ? { max_tokens: request.maxOutputTokens } : {}),
    messages: [{ role: "system", content: request.system }, ...request.turns],
    stream: true,
    stream_options: { include_usage: true },
  };
  const response = await request.fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(request.apiKey ? { authorization: `Bearer ${request.apiKey}` } : {}),
    },
    body: JSON.stringify(body),
    signal: request.signal,
  });
  if (!response.ok || !response.body) {
    const text = await boundedText(response);
    throw new APICallError({
      message: refusalMessage(text, response.statusText),
      url,
      requestBodyValues: body,
      statusCode: response.status,
      responseHeaders: Object.fromEntries(response.headers),
      responseBody: text,
      isRetryable: retryable(response.status),
    });
  }
  const reply = new ReplyParts(onPart);
  const incoming = takeNodeBody(response);
  await (incoming ? readNode(incoming, reply) : readWeb(response.body, reply));
  reply.end();
}

/**
 * The reply's SSE events turned into parts as they are read. The text of every event one read
 * brought goes on as one piece (a reader that fell behind catches up in one step, not one per
 * token), and the text before a mid-stream error still goes on before it fails.
 */
class ReplyParts {
  private readonly events: string[] = [];
  private readonly parser = createParser({ onEvent: (event) => this.events.push(event.data) });
  private usage: ReportedUsage = {};
  private finishReason = "other";

  /** Characters read since the last event ended, at most: all of a read that ended one counts. */
  private sinceEvent = 0;

  constructor(private readonly onPart: (part: PlainPart) => void) {}

  /** One read of the connection; throws the provider's mid-stream error, or what `onPart` threw. */
  read(text: string): void {
    this.parser.feed(text);
    this.sinceEvent = this.events.length > 0 ? text.length : this.sinceEvent + text.length;
    if (this.sinceEvent > MAX_EVENT_CHARS)
      throw new Error(
        `The provider sent more than ${groupedDigits(MAX_EVENT_CHARS)} characters without ending an event.`,
      );
    let piece = "";
    let failure: Error | undefined;
    for (const data of this.events) {
      if (data === "[DONE]") continue;
      const chunk = JSON.parse(data) as CompletionChunk;
      if (chunk.error) {
        failure = new Error(chunk.error.message ?? "The provider reported an error mid-stream.");
        break;
      }
      if (chunk.usage) {
        this.usage = {
          inputTokens: chunk.usage.prompt_tokens ?? undefined,
          outputTokens: chunk.usage.completion_tokens ?? undefined,
        };
      }
      const choice = chunk.choices?.[0];
      if (choice?.finish_reason) this.finishReason = choice.finish_reason;
      const content = choice?.delta?.content;
      if (typeof content === "string") piece += content;
    }
    this.events.length = 0;
    if (piece.length > 0) this.onPart({ type: "text", text: piece });
    if (failure) throw failure;
  }

  end(): void {
    this.onPart({ type: "finish", usage: this.usage, finishReason: this.finishReason });
  }
}

/**
 * pinnedFetch's node:http response, read from its `data` events: each read goes on as it comes,
 * with no async iterator, generator or promise per read (issue 53). A failure (the provider's, a
 * hang-up, the call's signal, or `onPart`'s) destroys the response, which hangs up on the provider.
 */
function readNode(incoming: IncomingMessage, reply: ReplyParts): Promise<void> {
  incoming.setEncoding("utf8");
  return new Promise((resolve, reject) => {
    let failed: unknown;
    incoming.on("data", (text: string) => {
      if (failed !== undefined) return;
      try {
        reply.read(text);
      } catch (error) {
        failed = error;
        incoming.destroy();
      }
    });
    finished(incoming, (error) => {
      if (failed !== undefined) reject(failed);
      else if (error) reject(error);
      else resolve();
    });
  });
}

/** Any other fetch's web body, decoded; a failure cancels it, which hangs up on the provider. */
async function readWeb(body: ReadableStream<Uint8Array>, reply: ReplyParts): Promise<void> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      reply.read(decoder.decode(value, { stream: true }));
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}
