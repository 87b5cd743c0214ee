// Server-Sent Events for app conversations: `delta` events as the reply is produced, `step`
// events as each app member starts and ends, then exactly one `done` or `error`, each with an
// `id:` (a stream cannot be resumed: the id orders events, `Last-Event-ID` is ignored). Each event is written the moment it exists; proxies are told
// not to buffer; a comment line every 15 s keeps long runs' connections open; a client that
// disconnects cancels the run (charged only for what ran). A refusal before anything streams
// (not_found, service_disabled, insufficient_credits …) is an ordinary JSON error response.
import type { Actor, EndUserActor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { toAppError, type AppError } from "@/server/errors";
import type { RunStep } from "@/server/runtime/run";
import { converse, type ConverseInput, type ConverseResult } from "@/server/services/conversations";

export const HEARTBEAT_MS = 15_000;

export interface StreamOptions {
  /** The keep-alive comment's interval (tests shorten it). */
  heartbeatMs?: number;
  /** Told the run's result once it finished (the Idempotency-Key record). */
  onDone?: (result: ConverseResult) => Promise<void>;
  /** Told a run that ended in an `error` event or a disconnect. */
  onFailed?: () => Promise<void>;
}

type StreamEvent =
  | { event: "start" }
  | { event: "delta"; data: { text: string } }
  | { event: "step"; data: RunStep }
  | { event: "done"; data: { reply: string; conversation_id: string; execution_id: string } }
  | { event: "error"; error: AppError };

function format(id: number, event: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Either the streaming response, or the error that came before anything was produced. The same
 * stream serves API keys, console members and end users in a portal (`EndUserActor`).
 */
export async function conversationStream(
  db: Db,
  actor: Actor | EndUserActor,
  input: ConverseInput,
  requestSignal: AbortSignal,
  headers: Headers,
  options: StreamOptions = {},
): Promise<Response | AppError> {
  const abort = new AbortController();
  requestSignal.addEventListener("abort", () => abort.abort(), { once: true });
  const queue: StreamEvent[] = [];
  let wake: (() => void) | null = null;
  const push = (event: StreamEvent) => {
    queue.push(event);
    wake?.();
  };
  const next = async (): Promise<StreamEvent> => {
    while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    wake = null;
    return queue.shift()!;
  };

  converse(db, actor, input, {
    signal: abort.signal,
    onStart: () => push({ event: "start" }),
    onDelta: (text) => push({ event: "delta", data: { text } }),
    onStep: (step) => push({ event: "step", data: step }),
  }).then(
    async (result) => {
      // Remembered before `done` goes out, so a client that closes on `done` and retries replays it.
      await options.onDone?.(result).catch((error: unknown) => console.error("Remembering a finished stream failed:", error));
      push({ event: "done", data: { reply: result.reply, conversation_id: result.conversation_id, execution_id: result.execution_id } });
    },
    async (error: unknown) => {
      await options.onFailed?.().catch(() => {});
      push({ event: "error", error: toAppError(error) });
    },
  );

  // Refusals come before the run starts and stay ordinary JSON errors; once it starts, the
  // stream opens at once and a failure (a run bound, the provider) is an `error` event.
  const first = await next();
  if (first.event === "error") return first.error;

  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const heartbeat = setInterval(() => controller.enqueue(encoder.encode(": keep-alive\n\n")), options.heartbeatMs ?? HEARTBEAT_MS);
      let id = 0;
      try {
        for (let event: StreamEvent = first; ; event = await next()) {
          id += 1;
          if (event.event === "start") {
            controller.enqueue(encoder.encode(": started\n\n"));
            continue;
          }
          if (event.event === "error") {
            controller.enqueue(encoder.encode(format(id, "error", { error: event.error.toBody() })));
            break;
          }
          controller.enqueue(encoder.encode(format(id, event.event, event.data)));
          if (event.event === "done") break;
        }
      } finally {
        clearInterval(heartbeat);
        controller.close();
      }
    },
    cancel() {
      abort.abort();
    },
  });
  return new Response(body, { status: 200, headers: streamHeaders(headers) });
}

/** A stream's headers: its type, and no caching or buffering by proxies. */
export function streamHeaders(headers: Headers): Headers {
  headers.set("Content-Type", "text/event-stream; charset=utf-8");
  headers.set("Cache-Control", "no-cache, no-transform");
  headers.set("X-Accel-Buffering", "no");
  return headers;
}
