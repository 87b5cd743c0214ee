// The client side of a conversation stream (Server-Sent Events: `run`, `delta`, `step`, then
// `done` or `error`, each with an `id:`), shared by the console chat and the portal. Runs outlive
// their connection: when the connection drops before the final event, the stream is picked up
// again from the last event seen (`GET …/conversation/runs/{executionId}/events` with
// `Last-Event-ID`), so a flaky network costs neither text nor a second run. Refusals before the
// run are the JSON envelope.
import { createParser } from "eventsource-parser";

export interface StreamDone {
  reply: string;
  conversation_id: string;
  execution_id?: string;
}

/** A refusal or failure with the product's code, so callers can react to 401, 402 or `canceled` by code. */
export class StreamError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = "StreamError";
  }
}

/** The code of a stream that ended without its last event (never one the server sends). */
export const CONNECTION_LOST = "connection_lost";

type ErrorBody = { error?: { code?: string; message?: string } };

export interface StreamCallbacks {
  onDelta: (text: string) => void;
  /** The run's ids, as soon as it started (before any text). */
  onRun?: (run: { executionId: string; conversationId: string }) => void;
  /** True while the connection is being picked up again after a drop; false once it is back. */
  onReconnecting?: (reconnecting: boolean) => void;
}

/** How long the chat keeps trying to pick a dropped run up again. */
const RESUME_FOR_MS = 120_000;
const RESUME_BACKOFF_MS = [500, 1000, 2000, 4000, 5000];

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

async function refusal(response: Response): Promise<StreamError> {
  const parsed = (await response.json().catch(() => null)) as ErrorBody | null;
  return new StreamError(
    parsed?.error?.message ?? `The request failed (${response.status}).`,
    response.status,
    parsed?.error?.code,
  );
}

/**
 * Posts one message to `url` (a chat's `…/conversation`) and calls `onDelta` with each piece of
 * the reply, resuming after a dropped connection; resolves with `done`'s data. Aborting `signal`
 * only stops listening: the run goes on (stopping it is the cancel call's job).
 */
export async function streamReply(
  url: string,
  body: Record<string, unknown>,
  callbacks: StreamCallbacks,
  signal: AbortSignal,
  /** Sent with each request (the embedded portal's session); read again for a resume. */
  headers: () => Record<string, string> = () => ({}),
): Promise<StreamDone> {
  let lastEventId = 0;
  let executionId: string | null = null;
  let outcome: { done: StreamDone } | { failure: StreamError } | null = null;
  let status = 0;

  async function read(response: Response): Promise<void> {
    status = response.status;
    const parser = createParser({
      onEvent: (event) => {
        if (event.id) lastEventId = Number(event.id) || lastEventId;
        const data = JSON.parse(event.data) as unknown;
        if (event.event === "run") {
          const run = data as { execution_id: string; conversation_id: string };
          executionId = run.execution_id;
          callbacks.onRun?.({ executionId: run.execution_id, conversationId: run.conversation_id });
        } else if (event.event === "delta") callbacks.onDelta((data as { text: string }).text);
        else if (event.event === "done") outcome = { done: data as StreamDone };
        else if (event.event === "error") {
          const error = (data as ErrorBody).error;
          outcome = { failure: new StreamError(error?.message ?? "The run failed.", response.status, error?.code) };
        }
      },
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
  }

  const first = await fetch(url, {
    method: "POST",
    headers: { ...headers(), "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  if (!first.ok || !first.headers.get("content-type")?.startsWith("text/event-stream")) throw await refusal(first);
  try {
    await read(first);
  } catch (error) {
    if (signal.aborted) throw error;
  }

  const giveUpAt = Date.now() + RESUME_FOR_MS;
  for (let attempt = 0; !outcome && executionId && !signal.aborted && Date.now() < giveUpAt; attempt++) {
    callbacks.onReconnecting?.(true);
    await sleep(RESUME_BACKOFF_MS[Math.min(attempt, RESUME_BACKOFF_MS.length - 1)]!, signal);
    try {
      const resumed = await fetch(`${url}/runs/${encodeURIComponent(executionId)}/events`, {
        headers: { ...headers(), "Last-Event-ID": String(lastEventId) },
        signal,
      });
      if (resumed.status === 204) break;
      if (!resumed.ok) {
        // A refusal (signed out, the run gone) will not get better by trying again.
        if (resumed.status < 500) throw await refusal(resumed);
        continue;
      }
      callbacks.onReconnecting?.(false);
      attempt = -1;
      await read(resumed);
    } catch (error) {
      if (error instanceof StreamError || signal.aborted) {
        callbacks.onReconnecting?.(false);
        throw error;
      }
    }
  }
  callbacks.onReconnecting?.(false);
  const settled = outcome as { done: StreamDone } | { failure: StreamError } | null;
  if (settled && "failure" in settled) throw settled.failure;
  if (!settled)
    throw new StreamError(
      "The connection was lost before the reply was finished. Your message was kept; try again.",
      status,
      CONNECTION_LOST,
    );
  return settled.done;
}
