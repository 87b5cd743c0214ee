// The console door: tRPC over HTTP for the browser, authenticated by the session cookie.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { readSessionToken } from "@/server/auth/cookies";
import type { Db } from "@/server/db";
import { logIfUnexpected, toAppError } from "@/server/errors";
import { actorForSession } from "@/server/services/sessions";
import type { Context } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";
import { errorResponse, requestIdFor } from "./rest";

export function createConsoleHandler(options: { db: () => Db }) {
  return async function handleConsole(request: Request): Promise<Response> {
    const requestId = requestIdFor(request);
    const sessionToken = readSessionToken(request.headers.get("cookie"));
    let context: Context;
    try {
      const db = options.db();
      context = { db, actor: await actorForSession(db, sessionToken), requestId, sessionToken, requestHeaders: request.headers, response: { headers: new Headers() } };
    } catch (error) {
      return errorResponse(toAppError(error), requestId);
    }
    return fetchRequestHandler({
      endpoint: "/api/trpc",
      req: request,
      router: appRouter,
      createContext: () => context,
      onError: ({ error }) => logIfUnexpected(toAppError(error)),
      responseMeta: ({ errors }) => {
        const headers = new Headers(context.response.headers);
        headers.set("X-Request-Id", requestId);
        return { headers, status: errors[0] ? toAppError(errors[0]).status : undefined };
      },
    });
  };
}
