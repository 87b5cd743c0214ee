// The streaming chat door the console (adapters/console.ts) and the portal (adapters/portal.ts)
// share: a write from this site only (Origin / Sec-Fetch-Site) as JSON, the signed-in caller from
// the door's own cookie, the body within bounds and storable, one schema (ChatConversationBody),
// then the run's Server-Sent Events (adapters/sse.ts); the GET that resumes a run after
// `Last-Event-ID`; the chat's uploads and their downloads. Answers are never cached. A client that
// hung up before its stream started gets 499 (nothing is written for it); a run that started goes
// on (the contract's "Runs outlive their connection"). A refusal before the stream is the JSON
// error envelope.
import { ChatConversationBody } from "@/schemas/runs/runtime";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import { assertJsonBody, assertSameOrigin } from "@/server/auth/same-origin";
import { assertStorableText } from "@/server/bounds";
import type { Db } from "@/server/db";
import { sessionEnded, toAppError } from "@/server/errors";
import { fileDownloadResponse } from "./download";
import { errorResponse, requestIdFor } from "./envelope";
import { readJsonBody } from "./json-body";
import { conversationStream, lastEventIdFrom, resumeStream } from "./sse";
import { uploadFileResponse } from "./upload";

/** What differs between the doors: who the caller is, read from the door's cookie (null when signed out). */
export interface ChatDoor<Route> {
  /** `requestId` is given when the call changes something, so the caller's origin is recorded with it. */
  callerOf(db: Db, request: Request, route: Route, requestId?: string): Promise<Actor | EndUserActor | null>;
}

/** The status nginx uses for a client that closed the connection before the answer. */
const CLIENT_CLOSED = 499;

function answerHeaders(requestId: string): Headers {
  return new Headers({ "X-Request-Id": requestId, "Cache-Control": "no-store" });
}

async function signedIn<Route>(door: ChatDoor<Route>, db: Db, request: Request, route: Route, requestId?: string) {
  const caller = await door.callerOf(db, request, route, requestId);
  if (!caller) throw sessionEnded();
  return caller;
}

function refusal(request: Request, error: unknown, requestId: string): Response {
  if (request.signal.aborted) return new Response(null, { status: CLIENT_CLOSED });
  return errorResponse(toAppError(error), requestId);
}

/** `POST …/apps/{appId}/conversation`: a turn, answered as the run's events. */
export function createChatConversationHandler<Route extends { appId: string }>(
  options: { db: () => Db },
  door: ChatDoor<Route>,
) {
  return async function handleChatConversation(request: Request, route: Route): Promise<Response> {
    const requestId = requestIdFor(request);
    try {
      assertSameOrigin(request);
      assertJsonBody(request);
      const db = options.db();
      const caller = await signedIn(door, db, request, route, requestId);
      const body = (await readJsonBody(request)) ?? {};
      assertStorableText(body);
      const input = ChatConversationBody.parse(body);
      const turn = {
        appId: route.appId,
        message: input.message,
        conversationId: input.conversation_id,
        regenerate: input.regenerate,
        fileIds: input.fileIds,
      };
      const result = await conversationStream(db, caller, turn, answerHeaders(requestId));
      return result instanceof Response ? result : errorResponse(result, requestId);
    } catch (error) {
      return refusal(request, error, requestId);
    }
  };
}

/** `POST …/files`: one file for the caller's next turn (multipart, one `file` part), answered 201 `{ file }`. */
export function createChatFilesHandler<Route>(options: { db: () => Db }, door: ChatDoor<Route>) {
  return async function handleChatFiles(request: Request, route: Route): Promise<Response> {
    const requestId = requestIdFor(request);
    try {
      assertSameOrigin(request);
      const db = options.db();
      const caller = await signedIn(door, db, request, route, requestId);
      return await uploadFileResponse(db, caller, request, answerHeaders(requestId));
    } catch (error) {
      return refusal(request, error, requestId);
    }
  };
}

/**
 * `GET …/files/{fileId}/content`: a file the signed-in caller may read (the one who sent it, an
 * organization admin), as a download; a read from this site's own pages only.
 */
export function createChatFileContentHandler<Route>(options: { db: () => Db }, door: ChatDoor<Route>) {
  return async function handleChatFileContent(request: Request, route: Route & { fileId: string }): Promise<Response> {
    const requestId = requestIdFor(request);
    try {
      assertSameOrigin(request);
      const db = options.db();
      const caller = await signedIn(door, db, request, route);
      return await fileDownloadResponse(db, caller, { fileId: route.fileId }, request, answerHeaders(requestId));
    } catch (error) {
      return refusal(request, error, requestId);
    }
  };
}

/** `GET …/apps/{appId}/conversation/runs/{executionId}/events`: a run's events again, after `Last-Event-ID`, for the caller whose run it is. */
export function createChatRunEventsHandler<Route extends { appId: string }>(
  options: { db: () => Db },
  door: ChatDoor<Route>,
) {
  return async function handleChatRunEvents(
    request: Request,
    route: Route & { executionId: string },
  ): Promise<Response> {
    const requestId = requestIdFor(request);
    try {
      assertSameOrigin(request);
      const db = options.db();
      const caller = await signedIn(door, db, request, route);
      return await resumeStream(
        db,
        caller,
        { appId: route.appId, executionId: route.executionId },
        lastEventIdFrom(request),
        answerHeaders(requestId),
      );
    } catch (error) {
      return refusal(request, error, requestId);
    }
  };
}
