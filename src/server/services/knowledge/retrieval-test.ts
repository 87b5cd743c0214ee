// "What would an agent receive for this question?": the passages the runtime's retrieval gives
// an agent with this one knowledgebase, through the same function a run calls.
import type { RetrievalTestOutput } from "@/schemas/knowledge/retrieval-test";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { retrievePassages } from "@/server/runtime/retrieval/passages";
import { findKnowledgebase } from "../support/knowledge-access";

export const testRetrieval = guarded(
  { scope: "knowledge:read" },
  async function testRetrieval(
    db: Db,
    actor: Actor,
    input: { knowledgebaseId: string; question: string },
  ): Promise<RetrievalTestOutput> {
    const knowledgebase = await findKnowledgebase(db, actor, input.knowledgebaseId);
    const { passages, path } = await retrievePassages(db, actor.organizationId, [knowledgebase.id], input.question);
    return { passages: passages.map((passage) => ({ title: passage.title, text: passage.text })), path };
  },
);
