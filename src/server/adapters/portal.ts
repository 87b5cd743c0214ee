// The portal door, outside /api/v1: tRPC for end users (`/api/portal/trpc`) and the chat stream
// (`POST /api/portal/{portal}/apps/{appId}/conversation`), authenticated by the portal session
// (its cookie, or the embedded chat's bearer token). Writes must come from this site (Origin /
// Sec-Fetch-Site) as JSON; the embed token exchange comes from the embed frame or an allowed origin.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { publicOrigin } from "@/env";
import { MAX_TRPC_BATCH_CALLS } from "@/schemas/limits";
import { requestOrigin } from "@/server/auth/actor";
import { portalSessionTokenOf } from "@/server/auth/portal-cookie";
import { clientAddress } from "@/server/auth/client-address";
import { servedOverHttps } from "@/server/auth/cookies";
import { assertJsonBody, assertSameOrigin, ownOrigins } from "@/server/auth/same-origin";
import type { Db } from "@/server/db";
import { AppError, logIfUnexpected, toAppError } from "@/server/errors";
import { endUserForSession } from "@/server/services/portal/end-user-sessions";
import { embedLook, exchangeEmbedToken } from "@/server/services/portal/portal-embed";
import { openOwnExport } from "@/server/services/portal/portal-export";
import { portalTheme } from "@/lib/portal-theme";
import { resolvePortal } from "@/server/services/portal/portals";
import {
  EmbedOrigin,
  EmbedSessionInput,
  OwnExportInput,
  type EmbedLookOutput,
  type EmbedSessionOutput,
} from "@/schemas/portal/portal";
import type { z } from "zod";
import type { PortalContext } from "@/server/trpc/portal/init";
import { callSlots } from "@/server/trpc/call-slots";
import { portalRouter } from "@/server/trpc/portal-root";
import {
  createChatConversationHandler,
  createChatFileContentHandler,
  createChatFilesHandler,
  createChatRunEventsHandler,
  type ChatDoor,
} from "./conversation-door";
import { textStream } from "./download";
import { assertJsonDepth, parseJsonText, readBodyText, withBody } from "./json-body";
import { errorResponse, requestIdFor } from "./envelope";
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
        sessionToken: portalSessionTokenOf(request.headers),
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

/** The portal chat: the end user signed in to this portal, by the portal session cookie (src/server/adapters/conversation-door.ts). */
const portalChat: ChatDoor<{ portal: string; appId: string }> = {
  callerOf: async (db, request, route, requestId) =>
    endUserForSession(
      db,
      portalSessionTokenOf(request.headers),
      await resolvePortal(db, route.portal),
      requestId ? requestOrigin(request, requestId, "portal") : undefined,
    ),
};

/**
 * The portal chat (`POST /api/portal/{portal}/apps/{appId}/conversation`): the same Server-Sent
 * Events as the REST door's `stream: true`, with the end user's access and credits checked before anything runs.
 */
export function createPortalConversationHandler(options: { db: () => Db }) {
  const handle = createChatConversationHandler(options, portalChat);
  return (request: Request, portal: string, appId: string) => handle(request, { portal, appId });
}

/** The portal chat's uploads (`POST /api/portal/{portal}/files`): a file for the end user's next turn. */
export function createPortalFilesHandler(options: { db: () => Db }) {
  const handle = createChatFilesHandler(options, portalChat);
  return (request: Request, portal: string) => handle(request, { portal, appId: "" });
}

/** A file of the portal chat, for the end user who sent it (`GET /api/portal/{portal}/files/{fileId}/content`). */
export function createPortalFileContentHandler(options: { db: () => Db }) {
  const handle = createChatFileContentHandler(options, portalChat);
  return (request: Request, portal: string, fileId: string) => handle(request, { portal, appId: "", fileId });
}

/**
 * A portal chat run's events again (`GET /api/portal/{portal}/apps/{appId}/conversation/runs/{executionId}/events`),
 * after `Last-Event-ID`, for the end user whose run it is.
 */
export function createPortalRunEventsHandler(options: { db: () => Db }) {
  const handle = createChatRunEventsHandler(options, portalChat);
  return (request: Request, portal: string, appId: string, executionId: string) =>
    handle(request, { portal, appId, executionId });
}

/**
 * The signed-in end user's own export (`/api/portal/{portal}/account/export`), written as it is
 * read so a long history is never held whole: `GET` downloads it now, `POST {link}` with the
 * token of a mailed link (kept out of URLs and so out of logs). Both from this site's own pages.
 */
export function createPortalExportHandler(options: { db: () => Db }) {
  return async function handlePortalExport(request: Request, portalRef: string): Promise<Response> {
    const requestId = requestIdFor(request);
    try {
      assertSameOrigin(request);
      let link: string | undefined;
      if (request.method === "POST") {
        assertJsonBody(request);
        const text = await readBodyText(request);
        assertJsonDepth(text);
        link = OwnExportInput.parse(parseJsonText(text)).link;
      }
      const db = options.db();
      const portal = await resolvePortal(db, portalRef);
      const actor = await endUserForSession(
        db,
        portalSessionTokenOf(request.headers),
        portal,
        requestOrigin(request, requestId, "portal"),
      );
      if (!actor) throw new AppError("unauthorized", "Your session has ended; sign in again.");
      const pieces = await openOwnExport(db, actor, { portal, ...(link === undefined ? {} : { link }) });
      return new Response(textStream(pieces), {
        status: 200,
        headers: {
          "X-Request-Id": requestId,
          "Content-Type": "application/json; charset=utf-8",
          "Content-Disposition": `attachment; filename="my-data-${portal.slug}.json"`,
          "Cache-Control": "private, no-store",
          "X-Content-Type-Options": "nosniff",
        },
      });
    } catch (error) {
      return errorResponse(toAppError(error), requestId);
    }
  };
}

/**
 * The embedding page's origin: the request's Origin when a page of another origin calls, or,
 * when the embed frame (this site's own page) calls, the parent origin it was handed the token
 * by (its `message` event's origin, which the browser sets). Null when neither says.
 */
function embeddingOrigin(request: Request, parentOrigin: string | undefined): string | null {
  const origin = request.headers.get("origin");
  if (origin === null) return null;
  if (!ownOrigins(request).includes(origin)) return origin;
  const parent = EmbedOrigin.safeParse(parentOrigin);
  return parent.success ? parent.data : null;
}

/**
 * `POST /api/portal/{portal}/embed/session` `{token, parentOrigin?}`: the embed token exchanged
 * for an end-user session, answered (never set as a cookie, which a third-party frame may not
 * keep) for the frame to send as `Authorization: Bearer`.
 */
export function createEmbedSessionHandler(options: { db: () => Db }) {
  return async function handleEmbedSession(request: Request, portalRef: string): Promise<Response> {
    const requestId = requestIdFor(request);
    try {
      assertJsonBody(request);
      const text = await readBodyText(request);
      assertJsonDepth(text);
      const input = EmbedSessionInput.parse(parseJsonText(text));
      const db = options.db();
      const portal = await resolvePortal(db, portalRef);
      const { session, endUser } = await exchangeEmbedToken(db, {
        portal,
        token: input.token,
        origin: embeddingOrigin(request, input.parentOrigin),
        clientAddress: clientAddress(request.headers),
        requestOrigin: requestOrigin(request, requestId, "portal"),
      });
      const body: z.infer<typeof EmbedSessionOutput> = {
        session: session.token,
        expiresAt: session.expiresAt.toISOString(),
        endUser,
      };
      return new Response(JSON.stringify(body), {
        status: 200,
        headers: { "Content-Type": "application/json", "Cache-Control": "no-store", "X-Request-Id": requestId },
      });
    } catch (error) {
      return errorResponse(toAppError(error), requestId, { "Cache-Control": "no-store" });
    }
  };
}

/**
 * `GET /api/portal/{portal}/embed/look`: the launcher's colours and name for a page of an allowed
 * origin, read by /embed.js before anyone signs in (the browser sends the Origin of a cross-origin
 * fetch). Answered with that origin in Access-Control-Allow-Origin; any other origin gets 403.
 */
export function createEmbedLookHandler(options: { db: () => Db }) {
  return async function handleEmbedLook(request: Request, portalRef: string): Promise<Response> {
    const requestId = requestIdFor(request);
    const origin = request.headers.get("origin");
    const headers = { "Cache-Control": "no-store", "X-Request-Id": requestId, Vary: "Origin" };
    try {
      const look = await embedLook(options.db(), portalRef, origin);
      const theme = portalTheme(look.accentColor);
      const body: z.infer<typeof EmbedLookOutput> = {
        name: look.name,
        accent: theme.accent,
        accentText: theme.accentText,
      };
      return new Response(JSON.stringify(body), {
        status: 200,
        headers: { ...headers, "Content-Type": "application/json", "Access-Control-Allow-Origin": origin! },
      });
    } catch (error) {
      return errorResponse(toAppError(error), requestId, headers);
    }
  };
}
