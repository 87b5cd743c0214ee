// Checks every response of the REST door against the OpenAPI document, so that a response the
// document does not describe (an undocumented status, a body off its schema, a documented header
// with a value off its schema) fails the test that received it. Ajv compiles the document's own
// schemas (OpenAPI 3.1 schemas are JSON Schema 2020-12).
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { createParser } from "eventsource-parser";
import { openApiDocument } from "@/server/openapi";

type Schema = Record<string, unknown>;
interface ResponseObject {
  headers?: Record<string, { schema?: Schema }>;
  content?: Record<string, { schema?: Schema }>;
}
interface OperationEntry {
  method: string;
  template: string;
  pattern: RegExp;
  pointer: string;
  responses: Record<string, ResponseObject>;
}

const DOCUMENT_ID = "atrium-openapi";
const BASE_PATH = "/api/v1";

let state:
  | {
      ajv: Ajv2020;
      operations: OperationEntry[];
      responses: Record<string, ResponseObject>;
      headers: Record<string, { schema?: Schema }>;
      compiled: Map<string, ValidateFunction>;
    }
  | undefined;

function escapePointer(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

function load() {
  if (state) return state;
  const document = structuredClone(openApiDocument()) as unknown as {
    paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
    components: { responses?: Record<string, ResponseObject>; headers?: Record<string, { schema?: Schema }> };
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID } as Schema, DOCUMENT_ID);
  const operations: OperationEntry[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const segments = template
      .split("/")
      .map((segment) => (segment.startsWith("{") ? "[^/]+" : segment.replace(/[.*+?^$()|[\]\\]/g, "\\$&")));
    const pattern = new RegExp(`^${segments.join("/")}$`);
    for (const [method, operation] of Object.entries(item)) {
      if (!operation?.responses) continue;
      operations.push({
        method: method.toUpperCase(),
        template,
        pattern,
        pointer: `#/paths/${escapePointer(template)}/${method}`,
        responses: operation.responses,
      });
    }
  }
  // Literal segments win over parameters (`/agents/{id}/tests` vs `/agents/{agentId}/draft` never clash, but `/x/new` would).
  const parameterCount = (template: string) => template.split("{").length;
  operations.sort((a, b) => parameterCount(a.template) - parameterCount(b.template));
  state = {
    ajv,
    operations,
    responses: document.components.responses ?? {},
    headers: document.components.headers ?? {},
    compiled: new Map(),
  };
  return state;
}

function validatorFor(pointer: string): ValidateFunction {
  const { ajv, compiled } = load();
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

/** The documented operation a request reaches, or undefined for paths and methods the API does not have. */
export function findOperation(method: string, url: string): OperationEntry | undefined {
  const path = new URL(url).pathname.replace(BASE_PATH, "") || "/";
  // HEAD is GET without the body.
  const documented = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
  return load().operations.find((operation) => operation.method === documented && operation.pattern.test(path));
}

function mediaType(headers: Headers): string {
  return (headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

function fail(operation: OperationEntry, status: number, problem: string): never {
  throw new Error(
    `Response off the OpenAPI document: ${operation.method} ${operation.template} answered ${status}: ${problem}`,
  );
}

/**
 * Throws when the response is not one the document describes for the request's operation.
 * `bodyText` is the whole body, or undefined for a stream (only status, headers and media type are checked).
 */
export function assertDocumentedResponse(
  method: string,
  url: string,
  status: number,
  headers: Headers,
  bodyText: string | undefined,
): void {
  const operation = findOperation(method, url);
  if (!operation) {
    // No such route or method: the answer is still the error envelope.
    if (bodyText === undefined || bodyText === "") return;
    const validate = validatorFor("#/components/schemas/ErrorEnvelope");
    if (status >= 400 && !validate(JSON.parse(bodyText))) {
      throw new Error(
        `Error response off the envelope for ${method} ${url} (${status}): ${validate.errors && JSON.stringify(validate.errors)}`,
      );
    }
    return;
  }
  let response = operation.responses[String(status)];
  if (!response)
    fail(operation, status, `status not documented (documented: ${Object.keys(operation.responses).join(", ")})`);
  let pointer = `${operation.pointer}/responses/${status}`;
  const shared = (response as { $ref?: string }).$ref;
  if (shared) {
    pointer = shared;
    response = load().responses[shared.split("/").pop()!]!;
  }

  for (const [name, declared] of Object.entries(response.headers ?? {})) {
    const value = headers.get(name);
    if (value === null) continue;
    const ref = (declared as { $ref?: string }).$ref;
    const header = ref ? load().headers[ref.split("/").pop()!] : declared;
    if (!header?.schema) continue;
    const typed = /integer|number/.test(JSON.stringify(header.schema)) ? Number(value) : value;
    const validate = validatorFor(ref ? `${ref}/schema` : `${pointer}/headers/${escapePointer(name)}/schema`);
    if (!validate(typed)) fail(operation, status, `header ${name}: ${JSON.stringify(value)} ${ajvText(validate)}`);
  }

  const content = response.content ?? {};
  const type = mediaType(headers);
  if (Object.keys(content).length === 0) {
    if (bodyText !== undefined && bodyText !== "")
      fail(operation, status, `a body where the document says none: ${bodyText.slice(0, 200)}`);
    return;
  }
  if (!content[type])
    fail(
      operation,
      status,
      `content type ${JSON.stringify(type)} not documented (documented: ${Object.keys(content).join(", ")})`,
    );
  if (bodyText === undefined || type !== "application/json" || method.toUpperCase() === "HEAD") return;
  const validate = validatorFor(`${pointer}/content/${escapePointer(type)}/schema`);
  if (!validate(JSON.parse(bodyText)))
    fail(operation, status, `body ${ajvText(validate)}; body: ${bodyText.slice(0, 500)}`);
}

function ajvText(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .map((error) => `${error.instancePath || "/"} ${error.message} ${JSON.stringify(error.params)}`)
    .join("; ");
}

/** The schema of each event the conversation stream may send, as the document names them. */
const STREAM_EVENTS: Record<string, string> = {
  run: "ConversationRunEvent",
  delta: "ConversationDeltaEvent",
  step: "ConversationStepEvent",
  done: "ConversationDoneEvent",
  error: "ConversationErrorEvent",
};

/**
 * Passes a `text/event-stream` body through unchanged while checking each event against the
 * document: an unknown event name or a payload off its schema errors the stream the test reads.
 * A pass-through (not a tee), so a client that cancels still cancels the run.
 */
function validatingEventStream(body: ReadableStream<Uint8Array>, where: string): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  let problem: string | undefined;
  const parser = createParser({
    onEvent(event) {
      const name = STREAM_EVENTS[event.event ?? "message"];
      if (!name) {
        problem ??= `undocumented event ${JSON.stringify(event.event)}`;
        return;
      }
      const validate = validatorFor(`#/components/schemas/${name}`);
      if (!validate(JSON.parse(event.data)))
        problem ??= `${event.event} event ${ajvText(validate)}; data: ${event.data.slice(0, 300)}`;
    },
  });
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        if (problem) throw new Error(`Stream off the OpenAPI document: ${where}: ${problem}`);
        controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * Wraps a REST handler so every response it gives is checked against the document before the
 * test sees it. JSON bodies are read from a clone; a stream's events are checked as they pass.
 */
export function validatingHandler(
  handler: (request: Request) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const response = await handler(request);
    const streamed = mediaType(response.headers) === "text/event-stream";
    const bodyText = streamed ? undefined : await response.clone().text();
    assertDocumentedResponse(request.method, request.url, response.status, response.headers, bodyText);
    if (!streamed || !response.body) return response;
    const body = validatingEventStream(response.body, `${request.method} ${new URL(request.url).pathname}`);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
