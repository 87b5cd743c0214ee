// tRPC setup: the context every door builds, the procedure metadata the REST adapter and the
// OpenAPI document read, and the procedure factories that check who may call what.
import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { ZodType } from "zod";
import type { Actor, MemberActor } from "@/server/auth/actor";
import type { Door } from "@/server/auth/authenticate";
import { authorize, type Requirement } from "@/server/auth/authorize";
import type { DeclaredRequirement } from "@/server/auth/guarded";
import { assertStorableRawInput } from "@/server/bounds";
import type { Db } from "@/server/db";
import { AppError, toAppError, type ErrorCode, sessionEnded } from "@/server/errors";
import type { CallSlot } from "./call-slots";
import { withSyncValidation } from "./sync-validation";

export interface Context {
  db: Db;
  actor: Actor | null;
  requestId: string;
  /** The console session cookie, for signing out. */
  sessionToken?: string;
  /** The request's headers (REST and console doors), for the few procedures that read one (If-Unmodified-Since, Idempotency-Key). */
  requestHeaders?: Headers;
  /** The console is served over https: cookies it sets are Secure. */
  secureCookies?: boolean;
  /** Procedures may set the success status (201, 202, 204) and headers; doors apply them. */
  response: {
    status?: number;
    headers: Headers;
    /** The REST door answers this text instead of the JSON output (GET /usage?format=csv). */
    asText?: { contentType: string; render: (output: unknown) => string };
  };
  /** Runs each call of this request in one of its few slots (call-slots.ts); doors serving batches set it. */
  callSlot?: CallSlot;
}

export type Meta = OpenApiMeta<{
  auth?: Requirement;
  /** The organization switch that gates this endpoint besides `apiEnabled`. */
  door?: Door;
  /** Error codes the endpoint can answer, beyond the ones every authenticated call can. */
  errors?: ErrorCode[];
  /** The REST door answers Server-Sent Events when the JSON body says `stream: true`. */
  stream?: boolean;
  /** A GET the REST door answers as Server-Sent Events: a conversation run's stored and live events. */
  events?: boolean;
  /** Success status when it is not 200, for the OpenAPI document. */
  successStatus?: number;
  /**
   * A download served by src/server/adapters/download.ts: the audit log's, streamed (JSON Lines or
   * CSV; true), an attached file's bytes (`file`), or an end user's export document (`end_user_export`).
   */
  download?: true | "file" | "end_user_export";
  /**
   * The endpoint also takes multipart/form-data, served by src/server/adapters/upload.ts: a
   * source's file (true), a file for a chat (`files`, multipart only), or a conversation turn
   * with its files (`conversation`).
   */
  multipart?: true | "files" | "conversation";
  /** The REST door also answers text/csv (with `format=csv`), described so for the OpenAPI document. */
  csv?: string;
  /**
   * A second success status with the same body (202 pending_review beside 201/200 applied), or
   * with the named component schema alone (`schema`: one branch of an output union).
   */
  alsoSucceeds?: { status: number; description: string; schema?: string };
  /** The success carries an `ETag` (the resource's version), which `If-Match` on its writes names. */
  etag?: true;
  /**
   * A GET whose service writes the output's JSON text (service-procedures.ts, `queryJson`): the
   * REST door checks the input as the procedure would and sends the text as it is.
   */
  jsonText?: JsonTextService;
}>;

/** A service answering the JSON text of its procedure's output, with the procedure's input schema. */
export interface JsonTextService {
  input: ZodType;
  service: (db: Db, actor: Actor, input: never) => Promise<string>;
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      const appError = toAppError(error);
      // The request id travels with the error so the console can show it beside the message.
      return {
        ...shape,
        message: appError.message,
        data: {
          ...shape.data,
          stack: undefined,
          appError: appError.toBody(),
          httpStatus: appError.status,
          requestId: ctx?.requestId,
        },
      };
    },
  });

/** The root of every procedure: input and output checked synchronously (sync-validation.ts). */
const procedure = withSyncValidation(t.procedure);

/**
 * `work` in one of the request's call slots when it has them: a batch's calls run a few at a time
 * (call-slots.ts), their checks included. Each procedure's one middleware takes the slot itself,
 * as tRPC copies its call options (with defineProperty, key by key) for every middleware level,
 * and these procedures serve the hot paths.
 */
function inCallSlot<T>(ctx: Context, work: () => Promise<T>): Promise<T> {
  return ctx.callSlot ? ctx.callSlot(work) : work();
}

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Every input, whatever door it came through (REST body, query and path, console, MCP), is
 * refused when a string or key holds text PostgreSQL cannot store, naming the field: free-form
 * objects included, which no schema describes. Runs after the auth checks, before validation.
 */
const storableInput = t.middleware(({ ctx, getRawInput, next }) =>
  inCallSlot(ctx, async () => {
    await assertStorableRawInput(getRawInput);
    return next();
  }),
);

export const publicProcedure = procedure.use(storableInput);

/**
 * An endpoint open to API keys (REST, MCP) and to signed-in members, checked by scope and role
 * before the input is read, so a key without the scope hears `insufficient_scope` before any
 * `invalid_request`. `requirement` is the `.requirement` of the guarded service the procedure
 * calls (services check it again for the doors that bypass procedures); one without a scope
 * accepts any valid key. It is also the `auth` the REST door and the OpenAPI document read.
 */
export function scopedProcedure(requirement: DeclaredRequirement) {
  // The storable-input check runs in the same middleware (inCallSlot says why).
  return procedure.meta({ auth: requirement }).use(({ ctx, getRawInput, next }) =>
    inCallSlot(ctx, async () => {
      if (!ctx.actor) throw new AppError("unauthorized", "Sign in or send an API key.");
      authorize(ctx.actor, requirement);
      await assertStorableRawInput(getRawInput);
      return next({ ctx: { actor: ctx.actor } });
    }),
  );
}

/** A console-only endpoint for a signed-in member meeting `requirement` (the called service's). */
export function memberProcedure(requirement: DeclaredRequirement) {
  return procedure.meta({ auth: requirement }).use(({ ctx, getRawInput, next }) =>
    inCallSlot(ctx, async () => {
      if (ctx.actor?.kind !== "member") throw sessionEnded();
      authorize(ctx.actor, requirement);
      await assertStorableRawInput(getRawInput);
      return next({ ctx: { actor: ctx.actor as MemberActor } });
    }),
  );
}
