// The client side of a conversation stream (Server-Sent Events: `delta`, `step`, then `done` or
// `error`), shared by the console chat and the portal. Refusals before the run are the JSON envelope.
import { createParser } from "eventsource-parser";

export interface StreamDone {
  reply: string;
  conversation_id: string;
  execution_id?: string;
}

/** A refusal or failure with the product's code, so callers can react to 401 or 402 by code. */
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

type ErrorBody = { error?: { code?: string; message?: string } };

/** Posts one message to `url` and calls `onDelta` with each piece of the reply; resolves with `done`'s data. */
export async function streamReply(url: string, body: { message: string; conversation_id?: string }, onDelta: (text: string) => void, signal: AbortSignal): Promise<StreamDone> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
    const parsed = (await response.json().catch(() => null)) as ErrorBody | null;
    throw new StreamError(parsed?.error?.message ?? `The request failed (${response.status}).`, response.status, parsed?.error?.code);
  }
  let done: StreamDone | null = null;
  let failure: StreamError | null = null;
  const parser = createParser({
    onEvent: (event) => {
      const data = JSON.parse(event.data) as unknown;
      if (event.event === "delta") onDelta((data as { text: string }).text);
      else if (event.event === "done") done = data as StreamDone;
      else if (event.event === "error") {
        const error = (data as ErrorBody).error;
        failure = new StreamError(error?.message ?? "The run failed.", response.status, error?.code);
      }
    },
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    parser.feed(value);
  }
  if (failure) throw failure;
  if (!done) throw new StreamError("The connection closed before the reply was finished.", response.status);
  return done;
}
