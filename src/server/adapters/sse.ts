// Server-Sent Events for app conversations: `delta` events as the reply is produced, then
// exactly one `done` or `error`. Each event is written the moment it exists; proxies are told
// not to buffer; a comment line every 15 s keeps long runs' connections open; a client that
// disconnects cancels the run (charged only for what ran). A refusal before anything streams
// (not_found, service_disabled, insufficient_credits …) is an ordinary JSON error response.
import type { Actor, EndUserActor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { toAppError, type AppError } from "@/server/errors";
import { converse, type ConverseInput } from "@/server/services/conversations";

const HEARTBEAT_MS = 15_000;

type StreamEvent = { event: "delta"; data: { text: string } } | { event: "done"; data: { reply: string; conversation_id: string; execution_id: string } } | { event: "error"; error: AppError };

function format(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
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

  converse(db, actor, input, { signal: abort.signal, onDelta: (text) => push({ event: "delta", data: { text } }) }).then(
    (result) => push({ event: "done", data: { reply: result.reply, conversation_id: result.conversation_id, execution_id: result.execution_id } }),
    (error: unknown) => push({ event: "error", error: toAppError(error) }),
  );

  const first = await next();
  if (first.event === "error") return first.error;

  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const heartbeat = setInterval(() => controller.enqueue(encoder.encode(": keep-alive\n\n")), HEARTBEAT_MS);
      try {
        for (let event: StreamEvent = first; ; event = await next()) {
          if (event.event === "error") {
            controller.enqueue(encoder.encode(format("error", { error: event.error.toBody() })));
            break;
          }
          controller.enqueue(encoder.encode(format(event.event, event.data)));
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
  headers.set("Content-Type", "text/event-stream; charset=utf-8");
  headers.set("Cache-Control", "no-cache, no-transform");
  headers.set("X-Accel-Buffering", "no");
  return new Response(body, { status: 200, headers });
}
