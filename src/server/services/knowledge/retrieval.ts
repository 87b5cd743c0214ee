// The console's retrieval test over the one retrieval function (runtime/retrieval/retrieve.ts),
// guarded like every service; the ranking itself lives in runtime/retrieval/.
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { RUN_LIMITS } from "@/server/runtime/limits";
import { AGENT_PASSAGES, passageTitle, type RetrievedHit } from "@/server/runtime/retrieval/hits";
import { retrieve } from "@/server/runtime/retrieval/retrieve";
import { findKnowledgebase } from "../support/knowledge-access";

/**
 * The console's retrieval test: exactly the passages an agent attached to this knowledgebase
 * would receive for the question (same function, same count, same text length), with scores.
 */
export const retrievalTest = guarded(
  { scope: "knowledge:read" },
  async function retrievalTest(
    db: Db,
    actor: Actor,
    input: { knowledgebaseId: string; question: string },
  ): Promise<{ passages: (RetrievedHit & { passageTitle: string })[] }> {
    await findKnowledgebase(db, actor, input.knowledgebaseId);
    const hits = await retrieve(db, actor.organizationId, {
      knowledgebaseIds: [input.knowledgebaseId],
      query: input.question,
      limit: AGENT_PASSAGES,
      textChars: RUN_LIMITS.passageChars,
    });
    return { passages: hits.map((hit) => ({ ...hit, passageTitle: passageTitle(hit) })) };
  },
);
