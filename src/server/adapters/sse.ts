// Server-Sent Events for app conversations. A run's events are `run` (its ids, first), `delta`,
// `step`, then exactly one `done` or `error`, each with an `id:` (its place in the run). A stream
// sends them as stored (services/runs/conversation-runs.ts), so the POST that started the run, a
// resume by GET or a repeated POST with its Idempotency-Key, on any process, all send the same
// events with the same ids: from the start, or after `Last-Event-ID`. The first read catches up
// from storage; after it, a stream on the run's own process writes each event as the run sends
// it, one on another process reads it back when notified. The run goes on when a
// stream's client disconnects. Headers and a comment line go out at once; proxies are told not
// to buffer; a comment every 15 s keeps the connection open. A refusal before the run starts
// (not_found, service_disabled, insufficient_credits …) is an ordinary JSON error response.
// While the database is away a stream waits for it (comments keep it open): an `error` event
// is only ever the run's outcome, or a process shutting down (`server_shutdown`, endOpenStreams).
import type { Actor, EndUserActor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError, toAppError } from "@/server/errors";
import { isDatabaseAway } from "@/server/runtime/database-wait";
import { watchRun } from "@/server/runtime/run-hub";
import type { ConverseInput } from "@/server/services/runs/conversations";
import {
  endAbandonedRun,
  finalEventSeq,
  isAbandoned,
  openConversationRun,
  READ_BATCH,
  readRunEvents,
  startConversationRun,
  type RunHooks,
} from "@/server/services/runs/conversation-runs";
import { isFinal, type StoredEvent } from "@/server/services/runs/run-events";
import { eventStreamResponse, type EventSink } from "./event-stream-response";

export const HEARTBEAT_MS = 15_000;

export interface StreamOptions {
  /** The keep-alive comment's interval (tests shorten it). */
  heartbeatMs?: number;
}

/** The run a stream reads: its id, and when it started (a run left without an end is ended by its readers). */
interface StreamedRun {
  id: string;
  organizationId: string;
  status: string;
  createdAt: Date;
}

/** `Last-Event-ID` (header or `lastEventId` query, named by `field`) as the id of the last event seen; 0 when absent. */
export function lastEventIdOf(value: string | null | undefined, field = "Last-Event-ID"): number {
  if (value === null || value === undefined || value === "") return 0;
  if (!/^\d{1,9}$/.test(value)) {
    throw new AppError("invalid_request", `Invalid request: ${field} must be the \`id:\` of an event of this run.`, {
      problems: [{ path: field, message: "an event id (a whole number)" }],
    });
  }
  return Number(value);
}

/** The resume position a request names: the `Last-Event-ID` header, else the `lastEventId` query parameter. */
export function lastEventIdFrom(request: Request): number {
  const header = request.headers.get("last-event-id");
  return header !== null
    ? lastEventIdOf(header)
    : lastEventIdOf(new URL(request.url).searchParams.get("lastEventId"), "lastEventId");
}

/**
 * Starts a run and answers its stream from the start, or the refusal that came before it
 * started. The same stream serves API keys, console members and end users in a portal.
 */
export async function conversationStream(
  db: Db,
  actor: Actor | EndUserActor,
  input: ConverseInput,
  headers: Headers,
  options: StreamOptions & RunHooks = {},
): Promise<Response | AppError> {
  let started;
  try {
    started = await startConversationRun(db, actor, input, options);
  } catch (error) {
    return toAppError(error);
  }
  return runStream(
    db,
    { id: started.executionId, organizationId: actor.organizationId, status: "running", createdAt: new Date() },
    0,
    headers,
    options,
  );
}

/**
 * A run's stream after the event `after` (0: from the start), for a caller allowed to see it
 * (else not_found). A finished run whose last event the client already has answers 204, which
 * tells an EventSource to stop reconnecting.
 */
export async function resumeStream(
  db: Db,
  actor: Actor | EndUserActor,
  input: { appId: string; executionId: string },
  after: number,
  headers: Headers,
  options: StreamOptions = {},
): Promise<Response> {
  const run = await openConversationRun(db, actor, input);
  return attachStream(db, run, after, headers, options);
}

/** The stream of a run the caller was already found allowed to see (a repeated POST with its key). */
export async function attachStream(
  db: Db,
  run: StreamedRun,
  after: number,
  headers: Headers,
  options: StreamOptions = {},
): Promise<Response> {
  const final = await finalEventSeq(db, run);
  if (final !== null && after >= final) return new Response(null, { status: 204, headers });
  return runStream(db, run, after, headers, options);
}

function format(event: { seq: number; event: string; data: string }): string {
  return `id: ${event.seq}\nevent: ${event.event}\ndata: ${event.data}\n\n`;
}

function formatAll(events: readonly StoredEvent[]): string {
  let text = "";
  for (const event of events) text += format(event);
  return text;
}

/** The streams this process serves: what a shutdown past its grace ends (endOpenStreams). */
const openStreams = new Set<() => void>();

/** How long a stream waits, at most, before reading again while the database is away. */
const DATABASE_RETRY_MS = 2000;

export const SHUTDOWN_EVENT = {
  code: "server_shutdown",
  message:
    "This server is shutting down and closed the stream; the run is not ended by it. Resume its events from another server: GET …/conversation/runs/{execution_id}/events with Last-Event-ID (the `id:` of the last event you received).",
};

/**
 * Ends every stream this process still serves with an `error` event naming the shutdown (no
 * `id:`, so Last-Event-ID still names the run's last event seen): how many were open.
 */
export function endOpenStreams(): number {
  const ending = [...openStreams];
  for (const end of ending) end();
  return ending.length;
}

/**
 * Sends the run's stored events after `after`, then each new one as it is stored (handed by the
 * run when it runs in this process, else woken by the process's listener to read it back:
 * runtime/run-hub.ts), until the final one or the client leaves.
 */
function runStream(db: Db, run: StreamedRun, after: number, headers: Headers, options: StreamOptions): Response {
  let stop = () => {};
  return eventStreamResponse(
    {
      start(sink) {
        stop = relayRun(db, run, after, options, sink);
      },
      cancel: () => stop(),
    },
    { status: 200, headers: streamHeaders(headers) },
  );
}

/** Writes the run's events to `sink` from now on; the function returned stops it (the client left). */
function relayRun(db: Db, run: StreamedRun, after: number, options: StreamOptions, sink: EventSink): () => void {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  let open = true;
  let last = after;
  // While the loop below waits, the run's next events on this process are written as it hands
  // them, in order; anything else (a gap, the final event) wakes the loop.
  const watch = watchRun(db, run.id, (events) => {
    if (!open || events[0]!.seq !== last + 1 || events.some((event) => isFinal(event.event))) return false;
    sink.write(formatAll(events));
    last = events.at(-1)!.seq;
    return true;
  });
  const endForShutdown = () => {
    if (!open) return;
    open = false;
    sink.write(`event: error\ndata: ${JSON.stringify({ error: SHUTDOWN_EVENT })}\n\n`);
    sink.close();
    watch.close();
  };
  openStreams.add(endForShutdown);
  sink.write(": run\n\n");
  void (async () => {
    let away = 0;
    try {
      await watch.ready();
      // The first pass reads what was stored before this reader watched, unless the run's own
      // process handed it every event after `after` (a run this process just started): a
      // statement less for each new stream while the pool is busiest (issue 53).
      let events = watch.take(last);
      if (events?.length === 0) events = null;
      while (open) {
        if (events === null) {
          try {
            events = await readRunEvents(db, run, last);
            away = 0;
          } catch (error) {
            if (!isDatabaseAway(error)) throw error;
            // The run's events wait for the database too: read again once it is back.
            sink.write(": waiting for the database\n\n");
            await watch.next(Math.min(DATABASE_RETRY_MS, 100 * 2 ** ++away));
            continue;
          }
        }
        // One write per batch, not per event: each write costs the socket a syscall, and a
        // stream that fell behind gets many events at once (issue 53).
        if (!open) return;
        let text = "";
        for (const event of events) {
          text += format(event);
          last = event.seq;
          if (isFinal(event.event)) {
            sink.write(text);
            return;
          }
        }
        if (text) sink.write(text);
        // A read of a full batch may have left more in storage.
        if (events.length >= READ_BATCH) {
          events = null;
          continue;
        }
        // Every later store wakes this reader (a wake while it read is kept for the next call),
        // so it waits for one: with the batch in hand when the run is this process's.
        const woken = await watch.next(heartbeatMs);
        if (!open) return;
        if (woken) {
          events = watch.take(last);
          continue;
        }
        sink.write(": keep-alive\n\n");
        // Nothing stored for a long while, and no run can last that long: its process died.
        if (isAbandoned(run)) await endAbandonedRun(db, run.id, "run_lost").catch(() => {});
        await watch.ready();
        events = null;
      }
    } catch (error) {
      if (open) sink.write(`event: error\ndata: ${JSON.stringify({ error: toAppError(error).toBody() })}\n\n`);
    } finally {
      openStreams.delete(endForShutdown);
      watch.close();
      if (open) sink.close();
      open = false;
    }
  })();
  return () => {
    open = false;
    openStreams.delete(endForShutdown);
    watch.close();
  };
}

/** A stream's headers: its type, and no caching or buffering by proxies. */
export function streamHeaders(headers: Headers): Headers {
  headers.set("Content-Type", "text/event-stream; charset=utf-8");
  headers.set("Cache-Control", "no-cache, no-transform");
  headers.set("X-Accel-Buffering", "no");
  return headers;
}
