// The standard procedure: one guarded service called with the checked input, its answer checked
// against the output schema. Routers declare such a procedure by its path, words and schemas; a
// procedure that does more than call one service (a conditional status, a header, a wrapped
// answer) is declared the same way with `route` and given its own resolver.
import { z } from "zod";
import type { OpenApiMethod } from "trpc-to-openapi";
import type { BuilderKind } from "@/schemas/builder/builder";
import type { Actor, MemberActor } from "@/server/auth/actor";
import type { DeclaredRequirement } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { memberProcedure, router, scopedProcedure, type Meta } from "./init";

/**
 * The service's answer as the resolver type tRPC derives from `output`: the same type once `O` is
 * a concrete schema, which TypeScript cannot see inside these generic functions.
 */
function answer<O extends z.ZodType>(result: z.input<O>): never {
  return result as never;
}

const calledServices = new WeakMap<object, { name: string }>();

/** The guarded service a resolver built here calls, for the check that every door calls the service whose requirement it states. */
export function serviceCalledBy(resolver: unknown): { name: string } | undefined {
  return typeof resolver === "function" ? calledServices.get(resolver) : undefined;
}

/** `resolver`, recorded as calling `service`. */
function calling<R extends object>(service: { name: string }, resolver: R): R {
  calledServices.set(resolver, service);
  return resolver;
}

type Service<A, I, O> = ((db: Db, actor: A, input: I) => Promise<O>) & { readonly requirement: DeclaredRequirement };

/** A service serving agents, flows and apps alike, for one `kind`: its requirement is that kind's. */
export function forKind<A, I, R>(
  service: ((db: Db, actor: A, kind: BuilderKind, input: I) => Promise<R>) & {
    requirementFor(kind: BuilderKind): DeclaredRequirement;
  },
  kind: BuilderKind,
): Service<A, I, R> {
  const bound = (db: Db, actor: A, input: I) => service(db, actor, kind, input);
  Object.defineProperty(bound, "name", { value: service.name });
  return Object.assign(bound, { requirement: service.requirementFor(kind) });
}

/** `service` answering `{ [field]: its result }`, as the API wraps a single resource; the same requirement and name. */
export function answeringAs<K extends string, A, I, R>(
  field: K,
  service: Service<A, I, R>,
): Service<A, I, { [P in K]: R }> {
  const wrapped = async (db: Db, actor: A, input: I) =>
    ({ [field]: await service(db, actor, input) }) as { [P in K]: R };
  Object.defineProperty(wrapped, "name", { value: service.name });
  return Object.assign(wrapped, { requirement: service.requirement });
}

/** What the REST door and the OpenAPI document read, besides the tag and the schemas. */
export type RestSpec<I extends z.ZodType, O extends z.ZodType> = Omit<Meta, "openapi" | "auth"> & {
  path: `/${string}`;
  summary: string;
  description?: string;
  /** Headers the endpoint reads (If-Match), for the OpenAPI document. */
  requestHeaders?: z.ZodObject;
  input: I;
  output: O;
};

function restMeta(method: OpenApiMethod, tags: string[], spec: RestSpec<z.ZodType, z.ZodType>): Meta {
  const { path, summary, description, requestHeaders, input: _input, output: _output, ...rest } = spec;
  return {
    ...rest,
    openapi: {
      method,
      path,
      tags,
      summary,
      ...(description ? { description } : {}),
      ...(requestHeaders ? { requestHeaders } : {}),
    },
  };
}

/**
 * The procedures of one OpenAPI tag, open to API keys and members through scopedProcedure:
 * `query` a GET, `mutation` a write answering the service's result (with `successStatus` set when
 * given), `remove` a DELETE answering 204 with no body. `route` declares the rest for a resolver
 * that does more than answer the service's result (a conditional status, a header, a wrapped
 * answer), given after it with `.query` or `.mutation`.
 */
export function restProcedures(tag: string) {
  const tags = [tag];
  return {
    route<I extends z.ZodType, O extends z.ZodType>(
      method: OpenApiMethod,
      requirement: DeclaredRequirement,
      spec: RestSpec<I, O>,
    ) {
      return scopedProcedure(requirement)
        .meta(restMeta(method, tags, spec))
        .input(spec.input)
        .output(spec.output);
    },

    query<I extends z.ZodType, O extends z.ZodType>(
      service: Service<Actor, z.output<I>, z.input<O>>,
      spec: RestSpec<I, O>,
    ) {
      return scopedProcedure(service.requirement)
        .meta(restMeta("GET", tags, spec))
        .input(spec.input)
        .output(spec.output)
        .query(
          calling(service, async ({ ctx, input }) => answer<O>(await service(ctx.db, ctx.actor, input as z.output<I>))),
        );
    },

    /**
     * A GET whose service answers the JSON text of the output: the REST door sends that text as
     * it is, and the other doors (console, MCP) get it parsed and checked against `output`. A
     * test must hold the text to what JSON.stringify writes of the checked output, as
     * tests/knowledge/knowledgebase-json.test.ts does for the knowledgebase.
     */
    queryJson<I extends z.ZodType, O extends z.ZodType>(
      service: Service<Actor, z.output<I>, string>,
      spec: RestSpec<I, O>,
    ) {
      return scopedProcedure(service.requirement)
        .meta({ ...restMeta("GET", tags, spec), jsonText: { input: spec.input, service } })
        .input(spec.input)
        .output(spec.output)
        .query(
          calling(service, async ({ ctx, input }) =>
            answer<O>(JSON.parse(await service(ctx.db, ctx.actor, input as z.output<I>))),
          ),
        );
    },

    mutation<I extends z.ZodType, O extends z.ZodType>(
      method: Exclude<OpenApiMethod, "GET">,
      service: Service<Actor, z.output<I>, z.input<O>>,
      spec: RestSpec<I, O>,
    ) {
      return scopedProcedure(service.requirement)
        .meta(restMeta(method, tags, spec))
        .input(spec.input)
        .output(spec.output)
        .mutation(
          calling(service, async ({ ctx, input }) => {
            const result = await service(ctx.db, ctx.actor, input as z.output<I>);
            if (spec.successStatus) ctx.response.status = spec.successStatus;
            return answer<O>(result);
          }),
        );
    },

    remove<I extends z.ZodType>(
      service: Service<Actor, z.output<I>, unknown>,
      spec: Omit<RestSpec<I, z.ZodVoid>, "output" | "successStatus">,
    ) {
      return scopedProcedure(service.requirement)
        .meta(restMeta("DELETE", tags, { ...spec, output: z.void(), successStatus: 204 }))
        .input(spec.input)
        .output(z.void())
        .mutation(
          calling(service, async ({ ctx, input }) => {
            await service(ctx.db, ctx.actor, input as z.output<I>);
            ctx.response.status = 204;
          }),
        );
    },
  };
}

/** The router of one OpenAPI tag: `build` declares its procedures with that tag's `restProcedures`. */
export function restRouter<R extends Parameters<typeof router>[0]>(
  tag: string,
  build: (rest: ReturnType<typeof restProcedures>) => R,
) {
  return router(build(restProcedures(tag)));
}

/** A service a member calls with the output of schema `I`, answering the input of schema `O`. */
type MemberService<I, O extends z.ZodType> = Service<MemberActor, InputOf<I>, z.input<O>>;
type InputOf<I> = I extends z.ZodType ? z.output<I> : void;

/** The resolver calling `service` with the member and the checked input. */
function memberResolver<I, O extends z.ZodType>(service: MemberService<I, O>) {
  return calling(service, async ({ ctx, input }: { ctx: { db: Db; actor: MemberActor }; input: unknown }) =>
    answer<O>(await service(ctx.db, ctx.actor, input as InputOf<I>)),
  );
}

/** Console-only procedures (no REST path) for a signed-in member, through memberProcedure. */
export const memberCalls = {
  query<O extends z.ZodType>(service: MemberService<void, O>, output: O) {
    return memberProcedure(service.requirement).output(output).query(memberResolver<void, O>(service));
  },
  queryWith<I extends z.ZodType, O extends z.ZodType>(service: MemberService<I, O>, input: I, output: O) {
    return memberProcedure(service.requirement).input(input).output(output).query(memberResolver<I, O>(service));
  },
  mutation<O extends z.ZodType>(service: MemberService<void, O>, output: O) {
    return memberProcedure(service.requirement).output(output).mutation(memberResolver<void, O>(service));
  },
  mutationWith<I extends z.ZodType, O extends z.ZodType>(service: MemberService<I, O>, input: I, output: O) {
    return memberProcedure(service.requirement).input(input).output(output).mutation(memberResolver<I, O>(service));
  },
};
