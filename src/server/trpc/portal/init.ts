// tRPC for the portal door: end users, never members or keys. Its own context (the portal
// session cookie, the client's address) and procedure factories; errors in the same shape as
// the console's tRPC (`error.data.appError` is the envelope's `error`, `data.httpStatus` its status).
import { initTRPC } from "@trpc/server";
import type { z } from "zod";
import type { EndUserActor, RequestOrigin } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { assertStorableRawInput } from "@/server/bounds";
import { sessionEnded, toAppError } from "@/server/errors";
import { endUserForSession } from "@/server/services/portal/end-user-sessions";
import { resolvePortal } from "@/server/services/portal/portals";
import type { CallSlot } from "../call-slots";
import { withSyncValidation } from "../sync-validation";

export interface PortalContext {
  db: Db;
  requestId: string;
  /** The `atrium_portal_session` cookie. */
  sessionToken?: string;
  /** Where the request came from, for sign-in throttling. */
  clientAddress: string;
  /** Where the request came from, for the audit log. */
  requestOrigin?: RequestOrigin;
  /** The configured public origin (src/env.ts publicOrigin), for links in mail; never the request's Host. */
  origin: string;
  /** Cookies get `Secure` when the portal is served over https. */
  secure: boolean;
  /** Procedures set cookies and headers here; the door applies them. */
  response: { headers: Headers };
  /** Runs each call of this request in one of its few slots (call-slots.ts); doors serving batches set it. */
  callSlot?: CallSlot;
}

const t = initTRPC.context<PortalContext>().create({
  errorFormatter({ shape, error }) {
    const appError = toAppError(error);
    return {
      ...shape,
      message: appError.message,
      data: { ...shape.data, stack: undefined, appError: appError.toBody(), httpStatus: appError.status },
    };
  },
});

/** A batch's calls run a few at a time (../call-slots.ts), their checks included. */
const inCallSlot = t.middleware(({ ctx, next }) => (ctx.callSlot ? ctx.callSlot(() => next()) : next()));

/** The root of every portal procedure: input and output checked synchronously (../sync-validation.ts). */
const procedure = withSyncValidation(t.procedure.use(inCallSlot));

export const portalRouterFactory = t.router;

type PortalInputSchema = z.ZodType<{ portal: string }, unknown>;

/** A procedure anyone may call; `ctx.portal` is the portal the input names (unknown → not_found). */
export function portalProcedure<S extends PortalInputSchema>(input: S) {
  return procedure
    .use(async ({ getRawInput, next }) => {
      await assertStorableRawInput(getRawInput);
      return next();
    })
    .input(input)
    .use(async ({ ctx, input, next }) => {
      const portal = await resolvePortal(ctx.db, (input as { portal: string }).portal);
      return next({ ctx: { ...ctx, portal } });
    });
}

/**
 * A procedure for a signed-in end user of the portal's organization; `ctx.actor` is them.
 * No session, an ended one, one of another organization, or a revoked or deleted end user → 401.
 */
export function endUserProcedure<S extends PortalInputSchema>(input: S) {
  return portalProcedure(input).use(async ({ ctx, next }) => {
    const actor: EndUserActor | null = await endUserForSession(ctx.db, ctx.sessionToken, ctx.portal, ctx.requestOrigin);
    if (!actor) throw sessionEnded();
    return next({ ctx: { ...ctx, actor } });
  });
}

export const createPortalCallerFactory = t.createCallerFactory;
