// What every knowledge service (knowledgebases, pages, sources, reviews, search) asks before it
// writes or reads: is the knowledgebase the organization's, who is the author of a write, does
// that write wait for review, the plan caps on creating them, and the lock that serializes such checks. Kept apart so the
// services import it instead of each other.
import type { Actor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** The knowledgebase if the actor's organization owns it and it is not an end user's notebook. */
export async function findKnowledgebase(db: Db | Tx, actor: Actor, knowledgebaseId: string) {
  return knowledgebaseOf(db, actor.organizationId, knowledgebaseId);
}

/** The organization's knowledgebase (not an end user's own), for lookups that take the organization. */
export async function knowledgebaseOf(db: Db | Tx, organizationId: string, knowledgebaseId: string) {
  const row = await db.knowledgebase.findFirst({ where: { id: knowledgebaseId, organizationId, endUserId: null } });
  if (!row) throw knowledgebaseNotFound();
  return row;
}

export function knowledgebaseNotFound(): AppError {
  return new AppError("not_found", "No knowledgebase with that id in this organization.");
}

/** Serializes writes per scope until the transaction ends (a count against a cap, a page tree). */
export async function lockFor(tx: Tx, name: string): Promise<void> {
  await tx.$executeRaw`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
}

const PLAN_CAPS = {
  maxKnowledgebases: (limit: number, used: number) =>
    `The plan allows ${limit} knowledgebase(s) and ${used} exist; nothing was created.`,
  maxSourcesPerKnowledgebase: (limit: number, used: number) =>
    `The plan allows ${limit} source(s) per knowledgebase and this one has ${used}; nothing was created.`,
} as const;

/**
 * Refuses a create that would pass one of the organization's plan caps with plan_limit. Call it in
 * the creating transaction: it first locks `scope` (the organization, or the knowledgebase) until
 * the transaction ends, so concurrent creates are counted one after another.
 */
export async function refuseOverPlanCap(
  tx: Tx,
  actor: Pick<Actor, "organizationId">,
  cap: keyof typeof PLAN_CAPS,
  scope: string,
  countUsed: () => Promise<number>,
): Promise<void> {
  await lockFor(tx, `${cap}:${scope}`);
  const caps = await tx.organization.findUniqueOrThrow({
    where: { id: actor.organizationId },
    select: { maxKnowledgebases: true, maxSourcesPerKnowledgebase: true },
  });
  const limit = caps[cap];
  if (limit === null) return;
  const used = await countUsed();
  if (used >= limit) throw new AppError("plan_limit", PLAN_CAPS[cap](limit, used), { limit, used });
}

/** Who a write is recorded against: a personal key's or console member, or nobody (organization key, operator). */
export function authorOf(actor: Actor): { authorMemberId: string | null; keyId: string | null } {
  if (actor.kind === "key") return { authorMemberId: actor.member?.id ?? null, keyId: actor.keyId };
  if (actor.kind === "member") return { authorMemberId: actor.member.id, keyId: null };
  return { authorMemberId: null, keyId: null };
}

/** Agent writes wait for review when the organization asks; people's writes never do. */
export async function reviewsWritesOf(db: Db, actor: Actor): Promise<boolean> {
  if (actor.kind !== "key") return false;
  const organization = await db.organization.findUnique({
    where: { id: actor.organizationId },
    select: { reviewAgentWrites: true },
  });
  return organization?.reviewAgentWrites ?? false;
}
