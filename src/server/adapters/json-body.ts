// Reading request bodies within bounds, for every door (REST, console tRPC and chat, MCP,
// multipart): the body is read as a stream and reading stops as soon as it passes the cap, a
// declared Content-Length over the cap is refused before anything is read, and JSON nesting is
// measured on the text, without recursion, before anything parses it.
import { MAX_JSON_BODY_BYTES, MAX_JSON_DEPTH } from "@/schemas/limits";
import { AppError } from "@/server/errors";

function jsonBodyTooLarge(): AppError {
  return new AppError(
    "invalid_request",
    `Invalid request: the body is over the ${MAX_JSON_BODY_BYTES / 1024 / 1024} MiB limit for JSON request bodies.`,
    {},
    { status: 413 },
  );
}

/** Refuses at once a request whose declared Content-Length is over `limit`. */
export function refuseDeclaredOversize(
  request: Request,
  limit = MAX_JSON_BODY_BYTES,
  refusal: () => AppError = jsonBodyTooLarge,
): void {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > limit) throw refusal();
}

/** The body's bytes, refused with `refusal()` as soon as more than `limit` arrive (Content-Length may be absent or wrong). */
export async function readBodyBytes(request: Request, limit: number, refusal: () => AppError): Promise<Buffer> {
  refuseDeclaredOversize(request, limit, refusal);
  if (!request.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw refusal();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The body as UTF-8 text, at most 8 MiB. */
export async function readBodyText(request: Request): Promise<string> {
  return (await readBodyBytes(request, MAX_JSON_BODY_BYTES, jsonBodyTooLarge)).toString("utf8");
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x7b, 0x5b]);
const CLOSERS = new Set([0x7d, 0x5d]);

/** Refuses JSON text nested deeper than 64 levels, counting brackets outside strings. */
export function assertJsonDepth(text: string): void {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      // Skip the string: to the next quote not escaped by a backslash.
      for (index++; index < text.length; index++) {
        const inner = text.charCodeAt(index);
        if (inner === BACKSLASH) index++;
        else if (inner === QUOTE) break;
      }
    } else if (OPENERS.has(code)) {
      if (++depth > MAX_JSON_DEPTH) {
        throw new AppError(
          "invalid_request",
          `Invalid request: the JSON is nested more than ${MAX_JSON_DEPTH} levels deep.`,
        );
      }
    } else if (CLOSERS.has(code)) {
      depth--;
    }
  }
}

/** JSON text as a value, after the depth check; invalid JSON is `invalid_request`. */
export function parseJsonText(text: string): unknown {
  assertJsonDepth(text);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError("invalid_request", "Invalid request: the body is not valid JSON.");
  }
}

/** The body as JSON within every bound; undefined when it is empty. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const text = await readBodyText(request);
  return text.trim() === "" ? undefined : parseJsonText(text);
}

/** A copy of `request` carrying `text` as its body (after the original body was read within bounds); none when empty. */
export function withBody(request: Request, text: string): Request {
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  return new Request(request.url, {
    method: request.method,
    headers,
    body: text === "" ? null : text,
    signal: request.signal,
  });
}
