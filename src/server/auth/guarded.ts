// A service function with its requirement (scope and role) declared beside it. Every door calls
// the guarded function (procedures, REST streams, MCP tools, the admin CLI), and the procedure
// factories take the function's `.requirement` for their early check and the OpenAPI document,
// so the requirement is written once, next to the function it protects.
import { BUILDER_KINDS, type BuilderKind } from "@/schemas/builder/builder";
import type { Actor, EndUserActor } from "./actor";
import { authorize, type Requirement } from "./authorize";

declare const declaredBrand: unique symbol;

/** A requirement a service declared with guarded(); the procedure factories take only these. */
export type DeclaredRequirement = Readonly<Requirement> & { readonly [declaredBrand]: true };

type AnyActor = Actor | EndUserActor;

export type Guarded<D, A extends AnyActor, Rest extends unknown[], R> = ((
  db: D,
  actor: A,
  ...rest: Rest
) => Promise<R>) & {
  readonly requirement: DeclaredRequirement;
};

export type GuardedByKind<D, A extends AnyActor, Rest extends unknown[], R> = ((
  db: D,
  actor: A,
  kind: BuilderKind,
  ...rest: Rest
) => Promise<R>) & {
  /** The requirement for one kind; the same object on every call, so procedures can be matched to it. */
  requirementFor(kind: BuilderKind): DeclaredRequirement;
};

function declare(requirement: Requirement): DeclaredRequirement {
  return Object.freeze({ ...requirement }) as DeclaredRequirement;
}

/**
 * `fn` behind `authorize(actor, requirement)`: refused calls reject (never throw synchronously)
 * before `fn` runs. The wrapper keeps `fn`'s name and types and carries the frozen requirement.
 */
export function guarded<D, A extends AnyActor, Rest extends unknown[], R>(
  requirement: Requirement,
  fn: (db: D, actor: A, ...rest: Rest) => Promise<R>,
): Guarded<D, A, Rest, R> {
  const declared = declare(requirement);
  const guard = async (db: D, actor: A, ...rest: Rest): Promise<R> => {
    authorize(actor, declared);
    return fn(db, actor, ...rest);
  };
  return Object.defineProperties(guard, {
    name: { value: fn.name },
    requirement: { value: declared, enumerable: true },
  }) as Guarded<D, A, Rest, R>;
}

/** guarded() for a function serving agents, flows and apps alike, whose requirement depends on the kind (its third argument). */
export function guardedByKind<D, A extends AnyActor, Rest extends unknown[], R>(
  requirementOf: (kind: BuilderKind) => Requirement,
  fn: (db: D, actor: A, kind: BuilderKind, ...rest: Rest) => Promise<R>,
): GuardedByKind<D, A, Rest, R> {
  const byKind = Object.fromEntries(BUILDER_KINDS.map((kind) => [kind, declare(requirementOf(kind))])) as Record<
    BuilderKind,
    DeclaredRequirement
  >;
  const requirementFor = (kind: BuilderKind): DeclaredRequirement => byKind[kind];
  const guard = async (db: D, actor: A, kind: BuilderKind, ...rest: Rest): Promise<R> => {
    authorize(actor, requirementFor(kind));
    return fn(db, actor, kind, ...rest);
  };
  return Object.defineProperties(guard, {
    name: { value: fn.name },
    requirementFor: { value: requirementFor, enumerable: true },
  }) as GuardedByKind<D, A, Rest, R>;
}
