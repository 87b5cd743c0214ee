// Atrium's TypeScript SDK: the typed client openapi-fetch builds from the generated types
// (schema.d.ts), plus what a generator cannot write: the key, errors as exceptions, list
// pages as async iterators, and the conversation stream as events that end on `done`, resumed
// by itself after a dropped connection (one run, one charge), with resume and cancel helpers.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { components, paths } from "./schema.js";

export type { components, paths } from "./schema.js";
export type Schemas = components["schemas"];
export type ErrorCode = Schemas["ErrorBody"]["code"];

/** Any non-2xx answer. `code` is stable; `extras` holds the code's typed fields (problems, limit, used, ...). */
export class AtriumError extends Error {
  override readonly name = "AtriumError";
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extras: Record<string, unknown>,
    readonly requestId: string | null,
  ) {
    super(message);
  }
}

export interface AtriumOptions {
  /** An organization key (sk_org_…) or a personal key (sk_mem_…). */
  apiKey: string;
  /** The server's origin, e.g. https://atrium.example.com; `/api/v1` is added. */
  baseUrl: string;
  /** Another fetch (tests, proxies). */
  fetch?: (request: Request) => Promise<Response>;
}

async function errorFrom(response: Response): Promise<AtriumError> {
  const requestId = response.headers.get("x-request-id");
  try {
    const { error } = (await response.clone().json()) as {
      error: { code: ErrorCode; message: string } & Record<string, unknown>;
    };
    const { code, message, ...extras } = error;
    return new AtriumError(response.status, code, message, extras, requestId);
  } catch {
    return new AtriumError(response.status, "server_error", `HTTP ${response.status}`, {}, requestId);
  }
}

const throwOnError: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await errorFrom(response);
    return undefined;
  },
};

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
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Reconnections after a dropped connection before giving up (default 5); each resumes after the last event seen. */
  maxReconnects?: number;
}

export interface Atrium {
  /** Every operation, typed: `atrium.client.GET("/agents/{agentId}", { params: { path: { agentId } } })`. Non-2xx throws AtriumError. */
  client: Client<paths>;
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
    upload(
      knowledgebaseId: string,
      file: Blob,
      options?: { name?: string; idempotencyKey?: string },
    ): Promise<AddedSource>;
  };
  apps: {
    /**
     * A streamed conversation turn: `run` (the execution to resume or cancel), `delta` and `step`
     * events, then `done` (the stream is closed). A dropped connection is resumed after the last
     * event seen, never posted again. A failed or canceled run throws AtriumError (`canceled`).
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
      options?: { lastEventId?: number; signal?: AbortSignal; maxReconnects?: number },
    ): AsyncGenerator<ConversationEvent>;
    /** Stops a run: its execution, `canceled` (or as it ended, when it had already ended). */
    cancel(appId: string, executionId: string): Promise<Execution>;
  };
}
export function createAtrium(options: AtriumOptions): Atrium {
  const baseUrl = `${options.baseUrl.replace(/\/$/, "")}/api/v1`;
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const client = createClient<paths>({ baseUrl, fetch: send, headers: { Authorization: `Bearer ${options.apiKey}` } });
  client.use(throwOnError);

  async function* list(
    path: ListPath,
    key: string,
    params: { path?: Record<string, string>; query?: Record<string, unknown> } = {},
  ) {
    let cursor: string | undefined;
    do {
      const { data } = await (
        client.GET as (path: string, init: unknown) => Promise<{ data?: Record<string, unknown> }>
      )(path, {
        params: { ...params, query: { ...params.query, ...(cursor ? { cursor } : {}) } },
      });
      for (const item of (data?.[key] as unknown[]) ?? []) yield item;
      cursor = (data?.nextCursor as string | null | undefined) ?? undefined;
    } while (cursor);
  }

  /** The events of one response, in order; throws AtriumError on an `error` event, ends quietly when the connection drops. */
  async function* eventsOf(
    response: Response,
    seen: { lastEventId: number; ended: boolean },
  ): AsyncGenerator<ConversationEvent> {
    if (!response.body) return;
    const requestId = response.headers.get("x-request-id");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => events.push(event) });
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<string>;
        try {
          chunk = await reader.read();
        } catch {
          return; // the connection dropped: the caller resumes
        }
        if (chunk.done) return;
        parser.feed(chunk.value);
        while (events.length > 0) {
          const event = events.shift()!;
          if (event.id) seen.lastEventId = Number(event.id);
          const data = JSON.parse(event.data) as Record<string, unknown>;
          if (event.event === "error") {
            seen.ended = true;
            const { code, message, ...extras } = (data as { error: { code: ErrorCode; message: string } }).error;
            throw new AtriumError(200, code, message, extras, requestId);
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

  /** Follows a run through dropped connections: each reconnection resumes after the last event seen. */
  async function* follow(
    appId: string,
    first: () => Promise<Response>,
    state: { executionId: string | null; lastEventId: number; ended: boolean },
    maxReconnects: number,
    signal?: AbortSignal,
  ): AsyncGenerator<ConversationEvent> {
    let response = await first();
    for (let reconnects = 0; ;) {
      if (response.status === 204) return;
      if (!response.ok) throw await errorFrom(response);
      for await (const event of eventsOf(response, state)) {
        if (event.type === "run") state.executionId = event.execution_id;
        yield event;
      }
      if (state.ended) return;
      if (!state.executionId || signal?.aborted || reconnects++ >= maxReconnects) {
        throw new AtriumError(
          502,
          "server_error",
          "The stream ended before `done`",
          {},
          response.headers.get("x-request-id"),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** reconnects, 5_000)));
      response = await send(runEventsRequest(appId, state.executionId, state.lastEventId, signal));
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
    });
    if (streamOptions.idempotencyKey) headers.set("Idempotency-Key", streamOptions.idempotencyKey);
    const post = () =>
      send(
        new Request(`${baseUrl}/apps/${encodeURIComponent(appId)}/conversation`, {
          method: "POST",
          headers,
          body: JSON.stringify({ ...input, stream: true }),
          signal: streamOptions.signal,
        }),
      );
    return follow(
      appId,
      post,
      { executionId: null, lastEventId: 0, ended: false },
      streamOptions.maxReconnects ?? 5,
      streamOptions.signal,
    );
  }

  function resumeConversation(
    appId: string,
    executionId: string,
    resumeOptions: { lastEventId?: number; signal?: AbortSignal; maxReconnects?: number } = {},
  ) {
    const state = { executionId, lastEventId: resumeOptions.lastEventId ?? 0, ended: false };
    const get = () => send(runEventsRequest(appId, executionId, state.lastEventId, resumeOptions.signal));
    return follow(appId, get, state, resumeOptions.maxReconnects ?? 5, resumeOptions.signal);
  }

  async function cancelConversation(appId: string, executionId: string): Promise<Execution> {
    const { data } = await client.POST("/apps/{appId}/conversation/runs/{executionId}/cancel", {
      params: { path: { appId, executionId } },
    });
    return data!.execution;
  }

  async function upload(
    knowledgebaseId: string,
    file: Blob,
    uploadOptions: { name?: string; idempotencyKey?: string } = {},
  ): Promise<AddedSource> {
    const form = new FormData();
    form.set("file", file, file instanceof File ? file.name : (uploadOptions.name ?? "upload"));
    if (uploadOptions.name !== undefined) form.set("name", uploadOptions.name);
    const headers = new Headers({ Authorization: `Bearer ${options.apiKey}` });
    if (uploadOptions.idempotencyKey) headers.set("Idempotency-Key", uploadOptions.idempotencyKey);
    const response = await send(
      new Request(`${baseUrl}/knowledgebases/${encodeURIComponent(knowledgebaseId)}/sources`, {
        method: "POST",
        headers,
        body: form,
      }),
    );
    if (!response.ok) throw await errorFrom(response);
    return (await response.json()) as AddedSource;
  }

  return {
    client,
    list: list as Atrium["list"],
    sources: { upload },
    apps: { converse: streamConversation, resume: resumeConversation, cancel: cancelConversation },
  };
}
