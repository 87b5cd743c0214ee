// The portal door, outside /api/v1: tRPC for end users (`/api/portal/trpc`) and the chat stream
// (`POST /api/portal/{portal}/apps/{appId}/conversation`), authenticated by the portal session
// cookie only. Writes must come from this site (Origin / Sec-Fetch-Site) as JSON.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { PortalConversationBody } from "@/schemas/portal";
import { readPortalSessionToken } from "@/server/auth/portal-cookie";
import { assertSameOrigin } from "@/server/auth/same-origin";
import type { Db } from "@/server/db";
import { AppError, logIfUnexpected, toAppError } from "@/server/errors";
import { endUserForSession } from "@/server/services/end-user-sessions";
import { resolvePortal } from "@/server/services/portals";
import type { PortalContext } from "@/server/trpc/portal/init";
import { portalRouter } from "@/server/trpc/portal-root";
import { errorResponse, requestIdFor } from "./rest";
import { conversationStream } from "./sse";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The portal's bodies are small (a message is at most 32,000 characters, however escaped). */
const BODY_LIMIT_BYTES = 512 * 1024;

/**
 * The client's address for sign-in throttling: the nearest proxy's view (the last
 * X-Forwarded-For entry, which Next.js fills from the socket when no proxy sent one).
 */
export function clientAddressOf(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-for");
  const last = forwarded?.split(",").map((part) => part.trim()).filter(Boolean).pop();
  return (last ?? request.headers.get("x-real-ip") ?? "unknown").slice(0, 100);
}

function isSecure(request: Request): boolean {
  return new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
}

function assertJson(request: Request): void {
  if (!/^application\/json\b/i.test(request.headers.get("content-type") ?? "")) {
    throw new AppError("invalid_request", "Invalid request: send the body as application/json.", {}, { status: 415 });
  }
}

/** The body as text, read no further than the limit (413 beyond it). */
async function readBody(request: Request): Promise<string> {
  const tooLarge = () => new AppError("invalid_request", "Invalid request: the body is too large.", {}, { status: 413 });
  if (Number(request.headers.get("content-length") ?? 0) > BODY_LIMIT_BYTES) throw tooLarge();
  if (!request.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    size += chunk.value.byteLength;
    if (size > BODY_LIMIT_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(chunk.value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function createPortalHandler(options: { db: () => Db }) {
  return async function handlePortal(request: Request): Promise<Response> {
    const requestId = requestIdFor(request);
    let context: PortalContext;
    let trpcRequest = request;
    try {
      if (request.method !== "GET") {
        assertSameOrigin(request);
        assertJson(request);
        trpcRequest = new Request(request.url, { method: request.method, headers: request.headers, body: await readBody(request), signal: request.signal });
      }
      context = {
        db: options.db(),
        requestId,
        sessionToken: readPortalSessionToken(request.headers.get("cookie")),
        clientAddress: clientAddressOf(request),
        origin: new URL(request.url).origin,
        secure: isSecure(request),
        response: { headers: new Headers() },
      };
    } catch (error) {
      return errorResponse(toAppError(error), requestId);
    }
    return fetchRequestHandler({
      endpoint: "/api/portal/trpc",
      req: trpcRequest,
      router: portalRouter,
      createContext: () => context,
      onError: ({ error }) => logIfUnexpected(toAppError(error)),
      responseMeta: ({ errors }) => {
        const headers = new Headers(context.response.headers);
        headers.set("X-Request-Id", requestId);
        headers.set("Cache-Control", "no-store");
        const first = errors[0] ? toAppError(errors[0]) : undefined;
        for (const [name, value] of Object.entries(first?.headers ?? {})) headers.set(name, value);
        return { headers, status: first?.status };
      },
    });
  };
}

/**
 * The portal chat: the same Server-Sent Events as the REST door's `stream: true`, for the
 * signed-in end user, with their access and credits checked before anything runs. Refusals
 * before the stream are the JSON error envelope.
 */
export function createPortalConversationHandler(options: { db: () => Db }) {
  return async function handlePortalConversation(request: Request, portalRef: string, appId: string): Promise<Response> {
    const requestId = requestIdFor(request);
    try {
      assertSameOrigin(request);
      assertJson(request);
      const db = options.db();
      const portal = await resolvePortal(db, portalRef);
      const actor = await endUserForSession(db, readPortalSessionToken(request.headers.get("cookie")), portal);
      if (!actor) throw new AppError("unauthorized", "Your session has ended; sign in again.");
      if (!UUID.test(appId)) throw new AppError("not_found", "No app with that id.");
      const text = await readBody(request);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new AppError("invalid_request", "Invalid request: the body is not valid JSON.");
      }
      const input = PortalConversationBody.parse(body);
      const headers = new Headers({ "X-Request-Id": requestId, "Cache-Control": "no-store" });
      const result = await conversationStream(db, actor, { appId: appId.toLowerCase(), message: input.message, conversationId: input.conversation_id }, request.signal, headers);
      return result instanceof Response ? result : errorResponse(result, requestId);
    } catch (error) {
      if (request.signal.aborted) return new Response(null, { status: 499 });
      return errorResponse(toAppError(error), requestId);
    }
  };
}
