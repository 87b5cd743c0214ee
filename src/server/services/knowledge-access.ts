// What every knowledge service (knowledgebases, pages, sources, reviews, search) asks before it
// writes or reads: is the knowledgebase the organization's, who is the author of a write, does
// that write wait for review, and the lock that serializes checks against a cap. Kept apart so the
// services import it instead of each other.
import type { Actor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** The knowledgebase if the actor's organization owns it and it is not an end user's notebook. */
export async function findKnowledgebase(db: Db | Tx, actor: Actor, knowledgebaseId: string) {
  const row = await db.knowledgebase.findFirst({ where: { id: knowledgebaseId, organizationId: actor.organizationId, endUserId: null } });
  if (!row) throw new AppError("not_found", "No knowledgebase with that id in this organization.");
  return row;
}

/** Serializes writes that check a count against a cap (knowledgebases, sources) per scope. */
export async function lockFor(tx: Tx, name: string): Promise<void> {
  await tx.$executeRaw`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
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
  const organization = await db.organization.findUnique({ where: { id: actor.organizationId }, select: { reviewAgentWrites: true } });
  return organization?.reviewAgentWrites ?? false;
}
