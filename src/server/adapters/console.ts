// The console door: tRPC over HTTP for the browser, authenticated by the session cookie.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { requestOrigin } from "@/server/auth/actor";
import { readSessionToken, servedOverHttps } from "@/server/auth/cookies";
import { assertJsonBody, assertSameOrigin } from "@/server/auth/same-origin";
import type { Db } from "@/server/db";
import { MAX_TRPC_BATCH_CALLS } from "@/schemas/limits";
import { AppError, logIfUnexpected, toAppError, sessionEnded } from "@/server/errors";
import {
  checkIdempotencyKey,
  claimIdempotencyKey,
  finishIdempotencyKey,
  hashRequest,
  releaseIdempotencyKey,
  type StoredResponse,
} from "@/server/services/support/idempotency";
import { actorForSession } from "@/server/services/identity/sessions";
import type { Context } from "@/server/trpc/init";
import { callSlots } from "@/server/trpc/call-slots";
import { appRouter } from "@/server/trpc/root";
import { downloadResponse, endUserExportResponse } from "./download";
import { errorResponse, requestIdFor } from "./envelope";
import {
  createChatConversationHandler,
  createChatFileContentHandler,
  createChatFilesHandler,
  createChatRunEventsHandler,
  type ChatDoor,
} from "./conversation-door";
import { assertJsonDepth, readBodyText, withBody } from "./json-body";
import { assertBatchWithinCap } from "./trpc-batch";

/**
 * The request with its body read within the JSON bounds (8 MiB, 64 levels) and handed on as
 * text; a query's `input` parameter is held to the nesting bound too.
 */
async function withinBounds(request: Request): Promise<Request> {
  const queryInput = new URL(request.url).searchParams.get("input");
  if (queryInput) assertJsonDepth(queryInput);
  if (request.method === "GET" || request.method === "HEAD") return request;
  const text = await readBodyText(request);
  assertJsonDepth(text);
  return withBody(request, text);
}

const CONSOLE_ENDPOINT = "/api/trpc";

export function createConsoleHandler(options: { db: () => Db }) {
  return async function handleConsole(request: Request): Promise<Response> {
    const requestId = requestIdFor(request);
    const sessionToken = readSessionToken(request.headers.get("cookie"));
    let context: Context;
    let refusal: AppError | undefined;
    let bounded: Request;
    let keyed: { organizationId: string; key: string } | null = null;
    let remembered: StoredResponse | null = null;
    try {
      assertBatchWithinCap(request, CONSOLE_ENDPOINT);
      refusal = refusalOfUnsafe(request);
      bounded = refusal ? request : await withinBounds(request);
      const db = options.db();
      context = {
        callSlot: callSlots(),
        db,
        actor: await actorForSession(db, sessionToken, requestOrigin(request, requestId, "console")),
        requestId,
        sessionToken,
        requestHeaders: request.headers,
        secureCookies: servedOverHttps(request),
        response: { headers: new Headers() },
      };
      const idempotencyKey = request.method === "POST" ? request.headers.get("idempotency-key") : null;
      if (idempotencyKey !== null && !refusal && context.actor) {
        // A refusal here (a malformed key, a key in use) answers in tRPC's error shape like any other.
        try {
          const url = new URL(request.url);
          const hash = hashRequest([request.method, `${url.pathname}${url.search}`, await bounded.clone().text()]);
          remembered = await claimIdempotencyKey(
            db,
            context.actor.organizationId,
            checkIdempotencyKey(idempotencyKey),
            hash,
          );
          if (!remembered) keyed = { organizationId: context.actor.organizationId, key: idempotencyKey };
        } catch (error) {
          refusal = toAppError(error);
        }
      }
    } catch (error) {
      return errorResponse(toAppError(error), requestId);
    }
    if (remembered) return replayed(remembered, requestId);
    if (!keyed) return handleProcedures(bounded, context, refusal, requestId);
    // The console's publish button sends one Idempotency-Key per intent, as the REST door honours
    // it on every POST: a success is remembered, a refusal or failure frees the key for a retry.
    const db = context.db;
    let response: Response;
    try {
      response = await handleProcedures(bounded, context, refusal, requestId);
    } catch (error) {
      await releaseIdempotencyKey(db, keyed.organizationId, keyed.key);
      throw error;
    }
    if (response.status !== 200) {
      await releaseIdempotencyKey(db, keyed.organizationId, keyed.key);
      return response;
    }
    const text = await response.text();
    await finishIdempotencyKey(db, keyed.organizationId, keyed.key, {
      status: response.status,
      body: JSON.parse(text),
    });
    return new Response(text, { status: response.status, headers: response.headers });
  };
}

function replayed(remembered: StoredResponse, requestId: string): Response {
  const headers = new Headers({
    "Content-Type": "application/json",
    "X-Request-Id": requestId,
    "Idempotent-Replayed": "true",
  });
  return new Response(JSON.stringify(remembered.body), { status: remembered.status, headers });
}

function handleProcedures(
  bounded: Request,
  context: Context,
  refusal: AppError | undefined,
  requestId: string,
): Promise<Response> {
  return fetchRequestHandler({
    endpoint: CONSOLE_ENDPOINT,
    req: bounded,
    maxBatchSize: MAX_TRPC_BATCH_CALLS,
    router: appRouter,
    // Thrown from here, a refusal answers in tRPC's error shape, before any procedure runs.
    createContext: () => {
      if (refusal) throw refusal;
      return context;
    },
    onError: ({ error }) => logIfUnexpected(toAppError(error)),
    responseMeta: ({ errors }) => {
      const headers = new Headers(context.response.headers);
      const error = errors[0] && toAppError(errors[0]);
      for (const [name, value] of Object.entries(error?.headers ?? {})) headers.set(name, value);
      headers.set("X-Request-Id", requestId);
      return { headers, status: error?.status };
    },
  });
}

/** Mutations (every non-GET call) come from the console's own pages, with a JSON body. */
function refusalOfUnsafe(request: Request): AppError | undefined {
  if (request.method === "GET" || request.method === "HEAD") return undefined;
  try {
    assertSameOrigin(request);
    assertJsonBody(request);
    return undefined;
  } catch (error) {
    return toAppError(error);
  }
}

/** The console chat: a signed-in member, by the session cookie (src/server/adapters/conversation-door.ts). */
const consoleChat: ChatDoor<{ appId: string }> = {
  callerOf: (db, request, _route, requestId) =>
    actorForSession(
      db,
      readSessionToken(request.headers.get("cookie")),
      requestId ? requestOrigin(request, requestId, "console") : undefined,
    ),
};

/**
 * The console's app conversation as Server-Sent Events (`POST /api/console/apps/{appId}/conversation`,
 * body `{message, conversation_id?, regenerate?}`): the same stream as the REST door's `stream: true`.
 */
export function createConsoleConversationHandler(options: { db: () => Db }) {
  const handle = createChatConversationHandler(options, consoleChat);
  return (request: Request, appId: string) => handle(request, { appId });
}

/** The console chat's uploads (`POST /api/console/files`): a file for the member's next turn. */
export function createConsoleFilesHandler(options: { db: () => Db }) {
  const handle = createChatFilesHandler(options, consoleChat);
  return (request: Request) => handle(request, { appId: "" });
}

/** A file of the console chat, for the member who sent it and the organization's admins (`GET /api/console/files/{fileId}/content`). */
export function createConsoleFileContentHandler(options: { db: () => Db }) {
  const handle = createChatFileContentHandler(options, consoleChat);
  return (request: Request, fileId: string) => handle(request, { appId: "", fileId });
}

/**
 * A console chat run's events again (`GET /api/console/apps/{appId}/conversation/runs/{executionId}/events`),
 * after `Last-Event-ID`: how the chat picks a run up after its connection dropped.
 */
export function createConsoleRunEventsHandler(options: { db: () => Db }) {
  const handle = createChatRunEventsHandler(options, consoleChat);
  return (request: Request, appId: string, executionId: string) => handle(request, { appId, executionId });
}

/** The member a console page's own request (same origin) comes from, by the session cookie; or unauthorized. */
async function signedInMember(db: Db, request: Request, requestId: string) {
  assertSameOrigin(request);
  const actor = await actorForSession(
    db,
    readSessionToken(request.headers.get("cookie")),
    requestOrigin(request, requestId, "console"),
  );
  if (!actor) throw sessionEnded();
  return actor;
}

/**
 * The Audit log's Export button (`GET /api/console/audit-events/export?format&filters`): the
 * same stream as GET /audit-events/export, for a signed-in admin.
 */
export function createConsoleAuditExportHandler(options: { db: () => Db }) {
  return async function handleAuditExport(request: Request): Promise<Response> {
    const requestId = requestIdFor(request);
    try {
      const db = options.db();
      const actor = await signedInMember(db, request, requestId);
      return await downloadResponse(db, actor, null, request, requestId);
    } catch (error) {
      return errorResponse(toAppError(error), requestId);
    }
  };
}

/**
 * An end user's page's "Download their data" (`GET /api/console/end-users/{endUserId}/export`):
 * the same stream as GET /end-users/{endUserId}/export, for a signed-in admin.
 */
export function createConsoleEndUserExportHandler(options: { db: () => Db }) {
  return async function handleEndUserExport(request: Request, endUserId: string): Promise<Response> {
    const requestId = requestIdFor(request);
    try {
      const db = options.db();
      const actor = await signedInMember(db, request, requestId);
      const headers = new Headers({
        "X-Request-Id": requestId,
        "Content-Disposition": `attachment; filename="end-user-${encodeURIComponent(endUserId)}.json"`,
      });
      return await endUserExportResponse(db, actor, { endUserId }, request, headers);
    } catch (error) {
      return errorResponse(toAppError(error), requestId);
    }
  };
}
