// The portal door, outside /api/v1: tRPC for end users (`/api/portal/trpc`) and the chat stream
// (`POST /api/portal/{portal}/apps/{appId}/conversation`), authenticated by the portal session
// cookie only. Writes must come from this site (Origin / Sec-Fetch-Site) as JSON.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { publicOrigin } from "@/env";
import { MAX_TRPC_BATCH_CALLS } from "@/schemas/limits";
import { PortalConversationBody } from "@/schemas/portal";
import { requestOrigin } from "@/server/auth/actor";
import { readPortalSessionToken } from "@/server/auth/portal-cookie";
import { clientAddress } from "@/server/auth/client-address";
import { servedOverHttps } from "@/server/auth/cookies";
import { assertJsonBody, assertSameOrigin } from "@/server/auth/same-origin";
import { assertStorableText } from "@/server/bounds";
import type { Db } from "@/server/db";
import { AppError, logIfUnexpected, toAppError } from "@/server/errors";
import { endUserForSession } from "@/server/services/end-user-sessions";
import { resolvePortal } from "@/server/services/portals";
import type { PortalContext } from "@/server/trpc/portal/init";
import { callSlots } from "@/server/trpc/call-slots";
import { portalRouter } from "@/server/trpc/portal-root";
import { assertJsonDepth, readBodyText, readJsonBody, withBody } from "./json-body";
import { errorResponse, requestIdFor } from "./envelope";
import { conversationStream, lastEventIdFrom, resumeStream } from "./sse";
import { assertBatchWithinCap } from "./trpc-batch";

const PORTAL_ENDPOINT = "/api/portal/trpc";

export function createPortalHandler(options: { db: () => Db }) {
  return async function handlePortal(request: Request): Promise<Response> {
    const requestId = requestIdFor(request);
    let context: PortalContext;
    let trpcRequest = request;
    try {
      assertBatchWithinCap(request, PORTAL_ENDPOINT);
      if (request.method !== "GET") {
        assertSameOrigin(request);
        assertJsonBody(request);
        const text = await readBodyText(request);
        assertJsonDepth(text);
        trpcRequest = withBody(request, text);
      }
      context = {
        callSlot: callSlots(),
        db: options.db(),
        requestId,
        sessionToken: readPortalSessionToken(request.headers.get("cookie")),
        clientAddress: clientAddress(request.headers),
        requestOrigin: requestOrigin(request, requestId, "portal"),
        origin: publicOrigin(),
        secure: servedOverHttps(request),
        response: { headers: new Headers() },
      };
    } catch (error) {
      return errorResponse(toAppError(error), requestId);
    }
    return fetchRequestHandler({
      endpoint: PORTAL_ENDPOINT,
      req: trpcRequest,
      maxBatchSize: MAX_TRPC_BATCH_CALLS,
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
      assertJsonBody(request);
      const db = options.db();
      const portal = await resolvePortal(db, portalRef);
      const actor = await endUserForSession(db, readPortalSessionToken(request.headers.get("cookie")), portal, requestOrigin(request, requestId, "portal"));
      if (!actor) throw new AppError("unauthorized", "Your session has ended; sign in again.");
      const body = (await readJsonBody(request)) ?? {};
      assertStorableText(body);
      const input = PortalConversationBody.parse(body);
      const headers = new Headers({ "X-Request-Id": requestId, "Cache-Control": "no-store" });
      const result = await conversationStream(db, actor, { appId, message: input.message, conversationId: input.conversation_id, regenerate: input.regenerate }, "portal", headers);
      return result instanceof Response ? result : errorResponse(result, requestId);
    } catch (error) {
      if (request.signal.aborted) return new Response(null, { status: 499 });
      return errorResponse(toAppError(error), requestId);
    }
  };
}

/**
 * A portal chat run's events again (`GET /api/portal/{portal}/apps/{appId}/conversation/runs/{executionId}/events`),
 * after `Last-Event-ID`, for the end user whose run it is.
 */
export function createPortalRunEventsHandler(options: { db: () => Db }) {
  return async function handlePortalRunEvents(request: Request, portalRef: string, appId: string, executionId: string): Promise<Response> {
    const requestId = requestIdFor(request);
    try {
      assertSameOrigin(request);
      const db = options.db();
      const portal = await resolvePortal(db, portalRef);
      const actor = await endUserForSession(db, readPortalSessionToken(request.headers.get("cookie")), portal);
      if (!actor) throw new AppError("unauthorized", "Your session has ended; sign in again.");
      const headers = new Headers({ "X-Request-Id": requestId, "Cache-Control": "no-store" });
      return await resumeStream(db, actor, { appId, executionId }, lastEventIdFrom(request), headers);
    } catch (error) {
      return errorResponse(toAppError(error), requestId);
    }
  };
}
