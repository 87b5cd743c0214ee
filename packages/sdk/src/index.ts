// Atrium's TypeScript SDK: the typed client openapi-fetch builds from the generated types
// (schema.d.ts), plus what a generator cannot write: the key, retries with backoff and Retry-After,
// timeouts and Idempotency-Keys (transport.ts), one error class per kind (errors.ts), list pages as
// async iterators, and the conversation stream as events that end on `done`, resumed by itself
// after a dropped connection (one run, one charge), with resume and cancel helpers.
import createClient, { type FetchResponse, type MaybeOptionalInit } from "openapi-fetch";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ConnectionError, errorFromEnvelope, type ErrorCode } from "./errors.js";
import { createSend, type RequestOptions, type Send } from "./transport.js";
import type { components, paths } from "./schema.js";

export type { components, paths } from "./schema.js";
export {
  AtriumError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  InsufficientCreditsError,
  NotFoundError,
  PermissionError,
  PreconditionFailedError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnprocessableError,
  ValidationError,
  type AtriumErrorCode,
  type ErrorCode,
  type ErrorExtras,
  type Problem,
} from "./errors.js";
export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type RequestOptions } from "./transport.js";
export type Schemas = components["schemas"];

export interface AtriumOptions {
  /** An organization key (sk_org_…) or a personal key (sk_mem_…). */
  apiKey: string;
  /** The server's origin, e.g. https://atrium.example.com; `/api/v1` is added. */
  baseUrl: string;
  /** Retries of a failed request (connection error, timeout, 408, 429, 5xx); default 2, 0 turns them off. */
  maxRetries?: number;
  /** Milliseconds each attempt may take (default 180 000); calls can pass their own. */
  timeout?: number;
  /** Another fetch (tests, proxies). */
  fetch?: (request: Request) => Promise<Response>;
}

type HttpMethod = "get" | "put" | "post" | "delete" | "head" | "patch";
type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- openapi-fetch's own constraint
type Operation<P extends keyof paths, M extends HttpMethod> = Extract<paths[P][M], Record<string | number, any>>;
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type CallInit<Init> = Init & RequestOptions & { [key: string]: unknown };
type InitArgs<Init> = RequiredKeys<Init> extends never ? [CallInit<Init>?] : [CallInit<Init>];
/** A success only: an error answer throws, so `data` is always there. */
type Succeeded<R> = R extends { data: infer Data; error?: never } ? { data: Data; response: Response } : never;
type Method<M extends HttpMethod> = <P extends PathsWith<M>, Init extends MaybeOptionalInit<paths[P], M>>(
  path: P,
  ...init: InitArgs<Init>
) => Promise<Succeeded<FetchResponse<Operation<P, M>, Init, `${string}/${string}`>>>;

/** Every operation, typed by path, parameters and body; each call also takes `timeout`, `maxRetries` and `idempotencyKey`. */
export interface AtriumClient {
  GET: Method<"get">;
  POST: Method<"post">;
  PUT: Method<"put">;
  PATCH: Method<"patch">;
  DELETE: Method<"delete">;
  HEAD: Method<"head">;
}

type Json<T> = T extends { content: { "application/json": infer Body } } ? Body : never;
type ListPath = {
  [P in keyof paths]: paths[P] extends { get: { parameters: { query?: { cursor?: string } } } } ? P : never;
}[keyof paths];
type ListBody<P extends ListPath> = paths[P] extends { get: { responses: { 200: infer Ok } } } ? Json<Ok> : never;
type ListQuery<P extends ListPath> = paths[P] extends { get: { parameters: { query?: infer Query } } } ? Query : never;
type ListParams<P extends ListPath> = paths[P] extends { get: { parameters: { path: infer Path } } }
  ? { path: Path; query?: ListQuery<P> }
  : { query?: ListQuery<P> };
type ItemsKey<P extends ListPath> = {
  [K in keyof ListBody<P>]: ListBody<P>[K] extends readonly unknown[] ? K : never;
}[keyof ListBody<P>];

export type ConversationInput = NonNullable<
  paths["/apps/{appId}/conversation"]["post"]["requestBody"]
>["content"]["application/json"];
export type ConversationEvent =
  | ({ type: "run" } & Schemas["ConversationRunEvent"])
  | ({ type: "delta" } & Schemas["ConversationDeltaEvent"])
  | ({ type: "step" } & Schemas["ConversationStepEvent"])
  | ({ type: "done" } & Schemas["ConversationDoneEvent"]);
export type Execution = Schemas["Execution"];
type AddSourceOperation = paths["/knowledgebases/{knowledgebaseId}/sources"]["post"];
export type AddedSource = AddSourceOperation["responses"][202]["content"]["application/json"];

export interface StreamOptions {
  /** The Idempotency-Key of the turn (by default the SDK makes one): the same key and message attach to the same run. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Reconnections after a dropped connection before giving up (default 5); each resumes after the last event seen. */
  maxReconnects?: number;
  /** Milliseconds each (re)connection may take until the stream starts. */
  timeout?: number;
  /**
   * Milliseconds of silence after which the connection is taken as dead and resumed (default
   * 60 000; the server sends a heartbeat every 15 seconds).
   */
  idleTimeout?: number;
}

export interface Atrium {
  /** Every operation, typed: `atrium.client.GET("/agents/{agentId}", { params: { path: { agentId } } })`. An error answer throws. */
  client: AtriumClient;
  /** Every item of a list, page after page (`nextCursor`), e.g. `list("/agents", "agents")`. */
  list<P extends ListPath, K extends ItemsKey<P>>(
    path: P,
    key: K,
    params?: ListParams<P>,
  ): AsyncGenerator<ListBody<P>[K] extends readonly (infer Item)[] ? Item : never>;
  sources: {
    /**
     * Uploads a file (a File, or a Blob with `name`) as a source: `multipart/form-data`, indexed in
     * the background (`status` "processing", or "pending_review" when the organization reviews writes).
     */
    upload(knowledgebaseId: string, file: Blob, options?: { name?: string } & RequestOptions): Promise<AddedSource>;
  };
  apps: {
    /**
     * A streamed conversation turn: `run` (the execution to resume or cancel), `delta` and `step`
     * events, then `done` (the stream is closed). A dropped connection is resumed after the last
     * event seen (before the `run` event, posted again with the same Idempotency-Key, which attaches
     * to the same run). A failed or canceled run throws its error (`canceled`: ConflictError).
     */
    converse(
      appId: string,
      input: Omit<ConversationInput, "stream">,
      options?: StreamOptions,
    ): AsyncGenerator<ConversationEvent>;
    /** A run's events after `lastEventId` (from the start without it), live until `done`; resumed by itself too. */
    resume(
      appId: string,
      executionId: string,
      options?: { lastEventId?: number } & Omit<StreamOptions, "idempotencyKey">,
    ): AsyncGenerator<ConversationEvent>;
    /** Stops a run: its execution, `canceled` (or as it ended, when it had already ended). */
    cancel(appId: string, executionId: string, options?: RequestOptions): Promise<Execution>;
  };
}

/** Four missed heartbeats (one every 15 seconds). */
const STREAM_IDLE_TIMEOUT_MS = 60_000;

/** The status a code has as an HTTP answer, for the codes a stream's `error` event carries. */
const STREAM_ERROR_STATUS: Partial<Record<ErrorCode, number>> = {
  canceled: 409,
  insufficient_credits: 402,
  run_limit_exceeded: 422,
  invalid_model: 422,
  output_invalid: 502,
  provider_error: 502,
  service_unavailable: 503,
};

export function createAtrium(options: AtriumOptions): Atrium {
  const baseUrl = `${options.baseUrl.replace(/\/$/, "")}/api/v1`;
  const send: Send = createSend({
    fetch: options.fetch ?? ((request: Request) => fetch(request)),
    maxRetries: options.maxRetries,
    timeout: options.timeout,
  });
  const typed = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${options.apiKey}` } });

  function method(name: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD") {
    return (path: string, init: Record<string, unknown> & RequestOptions = {}) => {
      const { timeout, maxRetries, idempotencyKey, ...rest } = init;
      const call = { timeout, maxRetries, idempotencyKey, buffer: rest.parseAs !== "stream" };
      return (typed[name] as (path: string, init: unknown) => Promise<unknown>)(path, {
        ...rest,
        fetch: (request: Request) => send(request, call),
      });
    };
  }
  const client = {
    GET: method("GET"),
    POST: method("POST"),
    PUT: method("PUT"),
    PATCH: method("PATCH"),
    DELETE: method("DELETE"),
    HEAD: method("HEAD"),
  } as unknown as AtriumClient;

  async function* list(
    path: ListPath,
    key: string,
    params: { path?: Record<string, string>; query?: Record<string, unknown> } = {},
  ) {
    let cursor: string | undefined;
    do {
      const { data } = await (
        client.GET as unknown as (path: string, init: unknown) => Promise<{ data: Record<string, unknown> }>
      )(path, {
        params: { ...params, query: { ...params.query, ...(cursor ? { cursor } : {}) } },
      });
      for (const item of (data[key] as unknown[] | undefined) ?? []) yield item;
      cursor = (data.nextCursor as string | null | undefined) ?? undefined;
    } while (cursor);
  }

  /** The events of one response, in order; throws on an `error` event, ends quietly when the connection drops. */
  async function* eventsOf(
    response: Response,
    seen: { lastEventId: number; ended: boolean },
    idleTimeout: number,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ConversationEvent> {
    if (!response.body) return;
    const requestId = response.headers.get("x-request-id");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    // The caller's abort ends the read itself: the request's signal may no longer reach the body
    // once its Request has been collected (transport.ts, attemptOnce). `follow` then throws it.
    const stopReading = () => void reader.cancel(signal?.reason).catch(() => undefined);
    signal?.addEventListener("abort", stopReading, { once: true });
    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => events.push(event) });
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<string> | "silent";
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          const silence = new Promise<"silent">(
            (resolve) => (timer = setTimeout(() => resolve("silent"), idleTimeout)),
          );
          chunk = await Promise.race([reader.read(), silence]);
        } catch {
          return; // the connection dropped: the caller resumes
        } finally {
          clearTimeout(timer);
        }
        // A connection silent past its heartbeats is as good as dropped: the caller resumes.
        if (chunk === "silent" || chunk.done) return;
        parser.feed(chunk.value);
        while (events.length > 0) {
          const event = events.shift()!;
          if (event.id) seen.lastEventId = Number(event.id);
          const data = JSON.parse(event.data) as Record<string, unknown>;
          if (event.event === "error") {
            seen.ended = true;
            const { error } = data as { error: { code: ErrorCode; message: string } & Record<string, unknown> };
            throw errorFromEnvelope(STREAM_ERROR_STATUS[error.code] ?? 500, error, requestId, response.headers);
          }
          // Unknown events are skipped, as the contract asks of clients.
          if (event.event === "run" || event.event === "delta" || event.event === "step")
            yield { type: event.event, ...data } as ConversationEvent;
          if (event.event === "done") {
            seen.ended = true;
            yield { type: "done", ...data } as ConversationEvent;
            return;
          }
        }
      }
    } finally {
      signal?.removeEventListener("abort", stopReading);
      // Closing on `done` (or on a throw) ends the request; the run itself goes on only until it ends.
      await reader.cancel().catch(() => undefined);
    }
  }

  function runEventsRequest(appId: string, executionId: string, lastEventId: number, signal?: AbortSignal): Request {
    const headers = new Headers({ Authorization: `Bearer ${options.apiKey}`, Accept: "text/event-stream" });
    if (lastEventId > 0) headers.set("Last-Event-ID", String(lastEventId));
    return new Request(
      `${baseUrl}/apps/${encodeURIComponent(appId)}/conversation/runs/${encodeURIComponent(executionId)}/events`,
      { headers, signal },
    );
  }

  /**
   * Follows a run through dropped connections: each reconnection resumes after the last event seen,
   * or, before the `run` event named the execution, posts the turn again with its key (`first`).
   */
  async function* follow(
    appId: string,
    first: () => Promise<Response>,
    state: { executionId: string | null; lastEventId: number; ended: boolean },
    stream: Omit<StreamOptions, "idempotencyKey">,
  ): AsyncGenerator<ConversationEvent> {
    const maxReconnects = stream.maxReconnects ?? 5;
    const idleTimeout = stream.idleTimeout ?? STREAM_IDLE_TIMEOUT_MS;
    let response = await first();
    for (let reconnects = 0; ;) {
      if (response.status === 204) return;
      for await (const event of eventsOf(response, state, idleTimeout, stream.signal)) {
        if (event.type === "run") state.executionId = event.execution_id;
        yield event;
      }
      if (state.ended) return;
      if (stream.signal?.aborted) throw stream.signal.reason;
      if (reconnects++ >= maxReconnects) throw new ConnectionError("The stream ended before `done`");
      await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** reconnects, 5_000)));
      response = state.executionId
        ? await send(runEventsRequest(appId, state.executionId, state.lastEventId, stream.signal), {
            buffer: false,
            timeout: stream.timeout,
          })
        : await first();
    }
  }

  function streamConversation(
    appId: string,
    input: Omit<ConversationInput, "stream">,
    streamOptions: StreamOptions = {},
  ) {
    const headers = new Headers({
      Authorization: `Bearer ${options.apiKey}`,
      "Content-Type": "application/json",
      Accept: "text/event-stream",
      // One key for the turn, on every attempt and reconnection: the server attaches them to one run.
      "Idempotency-Key": streamOptions.idempotencyKey ?? crypto.randomUUID(),
    });
    const post = () =>
      send(
        new Request(`${baseUrl}/apps/${encodeURIComponent(appId)}/conversation`, {
          method: "POST",
          headers,
          body: JSON.stringify({ ...input, stream: true }),
          signal: streamOptions.signal,
        }),
        { buffer: false, timeout: streamOptions.timeout },
      );
    return follow(appId, post, { executionId: null, lastEventId: 0, ended: false }, streamOptions);
  }

  function resumeConversation(
    appId: string,
    executionId: string,
    resumeOptions: { lastEventId?: number } & Omit<StreamOptions, "idempotencyKey"> = {},
  ) {
    const state = { executionId, lastEventId: resumeOptions.lastEventId ?? 0, ended: false };
    const get = () =>
      send(runEventsRequest(appId, executionId, state.lastEventId, resumeOptions.signal), {
        buffer: false,
        timeout: resumeOptions.timeout,
      });
    return follow(appId, get, state, resumeOptions);
  }

  async function cancelConversation(appId: string, executionId: string, call?: RequestOptions): Promise<Execution> {
    const { data } = await client.POST("/apps/{appId}/conversation/runs/{executionId}/cancel", {
      params: { path: { appId, executionId } },
      ...call,
    });
    return data.execution;
  }

  async function upload(
    knowledgebaseId: string,
    file: Blob,
    uploadOptions: { name?: string } & RequestOptions = {},
  ): Promise<AddedSource> {
    const { name, ...call } = uploadOptions;
    const form = new FormData();
    form.set("file", file, file instanceof File ? file.name : (name ?? "upload"));
    if (name !== undefined) form.set("name", name);
    const response = await send(
      new Request(`${baseUrl}/knowledgebases/${encodeURIComponent(knowledgebaseId)}/sources`, {
        method: "POST",
        headers: { Authorization: `Bearer ${options.apiKey}` },
        body: form,
      }),
      call,
    );
    return (await response.json()) as AddedSource;
  }

  return {
    client,
    list: list as Atrium["list"],
    sources: { upload },
    apps: { converse: streamConversation, resume: resumeConversation, cancel: cancelConversation },
  };
}
