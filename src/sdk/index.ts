// Atrium's TypeScript SDK: the typed client openapi-fetch builds from the generated types
// (schema.d.ts), plus what a generator cannot write: the key, errors as exceptions, list
// pages as async iterators, and the conversation stream as events that end on `done`.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { components, paths } from "./schema";

export type { components, paths } from "./schema";
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
    const { error } = (await response.clone().json()) as { error: { code: ErrorCode; message: string } & Record<string, unknown> };
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
type ListPath = { [P in keyof paths]: paths[P] extends { get: { parameters: { query?: { cursor?: string } } } } ? P : never }[keyof paths];
type ListBody<P extends ListPath> = paths[P] extends { get: { responses: { 200: infer Ok } } } ? Json<Ok> : never;
type ListQuery<P extends ListPath> = paths[P] extends { get: { parameters: { query?: infer Query } } } ? Query : never;
type ListParams<P extends ListPath> = paths[P] extends { get: { parameters: { path: infer Path } } } ? { path: Path; query?: ListQuery<P> } : { query?: ListQuery<P> };
type ItemsKey<P extends ListPath> = { [K in keyof ListBody<P>]: ListBody<P>[K] extends readonly unknown[] ? K : never }[keyof ListBody<P>];

export type ConversationInput = paths["/apps/{appId}/conversation"]["post"]["requestBody"]["content"]["application/json"];
export type ConversationEvent =
  ({ type: "delta" } & Schemas["ConversationDeltaEvent"]) | ({ type: "step" } & Schemas["ConversationStepEvent"]) | ({ type: "done" } & Schemas["ConversationDoneEvent"]);

export interface Atrium {
  /** Every operation, typed: `atrium.client.GET("/agents/{agentId}", { params: { path: { agentId } } })`. Non-2xx throws AtriumError. */
  client: Client<paths>;
  /** Every item of a list, page after page (`nextCursor`), e.g. `list("/agents", "agents")`. */
  list<P extends ListPath, K extends ItemsKey<P>>(path: P, key: K, params?: ListParams<P>): AsyncGenerator<ListBody<P>[K] extends readonly (infer Item)[] ? Item : never>;
  /** A streamed conversation turn: `delta` and `step` events, then `done` (the stream is closed). A failed run throws AtriumError. */
  streamConversation(appId: string, input: Omit<ConversationInput, "stream">, options?: { idempotencyKey?: string; signal?: AbortSignal }): AsyncGenerator<ConversationEvent>;
}

export function createAtrium(options: AtriumOptions): Atrium {
  const baseUrl = `${options.baseUrl.replace(/\/$/, "")}/api/v1`;
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const client = createClient<paths>({ baseUrl, fetch: send, headers: { Authorization: `Bearer ${options.apiKey}` } });
  client.use(throwOnError);

  async function* list(path: ListPath, key: string, params: { path?: Record<string, string>; query?: Record<string, unknown> } = {}) {
    let cursor: string | undefined;
    do {
      const { data } = await (client.GET as (path: string, init: unknown) => Promise<{ data?: Record<string, unknown> }>)(path, {
        params: { ...params, query: { ...params.query, ...(cursor ? { cursor } : {}) } },
      });
      for (const item of (data?.[key] as unknown[]) ?? []) yield item;
      cursor = (data?.nextCursor as string | null | undefined) ?? undefined;
    } while (cursor);
  }

  async function* streamConversation(appId: string, input: Omit<ConversationInput, "stream">, streamOptions: { idempotencyKey?: string; signal?: AbortSignal } = {}) {
    const headers = new Headers({ Authorization: `Bearer ${options.apiKey}`, "Content-Type": "application/json", Accept: "text/event-stream" });
    if (streamOptions.idempotencyKey) headers.set("Idempotency-Key", streamOptions.idempotencyKey);
    const response = await send(
      new Request(`${baseUrl}/apps/${encodeURIComponent(appId)}/conversation`, {
        method: "POST",
        headers,
        body: JSON.stringify({ ...input, stream: true }),
        signal: streamOptions.signal,
      }),
    );
    if (!response.ok) throw await errorFrom(response);
    if (!response.body) throw new AtriumError(response.status, "server_error", "The stream has no body", {}, response.headers.get("x-request-id"));
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => events.push(event) });
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new AtriumError(502, "server_error", "The stream ended before `done`", {}, response.headers.get("x-request-id"));
        parser.feed(value);
        while (events.length > 0) {
          const event = events.shift()!;
          const data = JSON.parse(event.data) as Record<string, unknown>;
          if (event.event === "error") {
            const { code, message, ...extras } = (data as { error: { code: ErrorCode; message: string } }).error;
            throw new AtriumError(200, code, message, extras, response.headers.get("x-request-id"));
          }
          // Unknown events are skipped, as the contract asks of clients.
          if (event.event === "delta" || event.event === "step") yield { type: event.event, ...data } as ConversationEvent;
          if (event.event === "done") {
            yield { type: "done", ...data } as ConversationEvent;
            return;
          }
        }
      }
    } finally {
      // Closing on `done` (or on a throw) ends the request: nothing reconnects or posts again.
      await reader.cancel().catch(() => undefined);
    }
  }

  return { client, list: list as Atrium["list"], streamConversation };
}
