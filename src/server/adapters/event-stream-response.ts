// Event streams (Server-Sent Events) written as text to whichever reader takes them first. Our own
// server (src/server/http/node-bridge.ts) takes the source and writes its text straight to the
// socket: no web ReadableStream, no Uint8Array and no read promise per write, which cost a stream
// that trickles tokens more than the rest of its relaying (issue 53). To every other reader
// (Next.js's route files, tests, a wrapper that copies the body) it is an ordinary Response whose
// body starts the source when first read.

/** Where a source writes: text as it comes, then the end. */
export interface EventSink {
  write(text: string): void;
  close(): void;
}

export interface TextSource {
  /** Starts writing to `sink`; called once, by the first reader. */
  start(sink: EventSink): void;
  /** The reader left (or never will read): stop writing. */
  cancel(): void;
}

/** Keyed by the body stream, which a Response built from another's body (CORS headers) shares. */
const sources = new WeakMap<ReadableStream<Uint8Array>, TextSource>();

export function eventStreamResponse(source: TextSource, init: ResponseInit): Response {
  const encoder = new TextEncoder();
  let started = false;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (started) return;
        started = true;
        sources.delete(body);
        source.start({
          write: (text) => controller.enqueue(encoder.encode(text)),
          close: () => controller.close(),
        });
      },
      cancel() {
        sources.delete(body);
        source.cancel();
      },
    },
    // Nothing is produced before a reader asks: the source starts with its first read.
    { highWaterMark: 0 },
  );
  sources.set(body, source);
  return new Response(body, init);
}

/** The source behind `response`'s body, taken (its body is then never read), or undefined. */
export function takeTextSource(response: Response): TextSource | undefined {
  const body = response.body;
  if (!body || body.locked || response.bodyUsed) return undefined;
  const source = sources.get(body);
  sources.delete(body);
  return source;
}
