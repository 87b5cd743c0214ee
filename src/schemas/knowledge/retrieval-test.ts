import { z } from "zod";
import { messageText, Uuid } from "../common";

/** A question asked of one knowledgebase in the console, to see what an agent would receive. */
export const RetrievalTestInput = z.strictObject({ knowledgebaseId: Uuid, question: messageText });
export const RetrievalTestOutput = z.object({
  passages: z.array(z.object({ title: z.string(), text: z.string() })),
  /** Which ranking answered and why (src/server/runtime/retrieval/hits.ts, RetrievalPath). */
  path: z.object({
    method: z.enum(["lexical", "hybrid"]),
    reason: z.enum([
      "nothing_to_search",
      "no_embedding_model",
      "lexical_by_setting",
      "no_vectors",
      "question_not_embedded",
      "fused",
    ]),
    /** The organization's embedding model, when it has one. */
    model: z.string().optional(),
    /** What became of reranking when the knowledgebase has it on (RerankOutcome); absent when it is off. */
    rerank: z
      .object({
        status: z.enum(["reranked", "skipped", "failed"]),
        reason: z
          .enum([
            "not_every_knowledgebase",
            "lexical_by_setting",
            "no_chat_model",
            "nothing_to_rerank",
            "timed_out",
            "provider_error",
            "not_a_ranking",
          ])
          .optional(),
        /** The chat model asked. */
        model: z.string().optional(),
        /** How long the call took. */
        ms: z.number().int().optional(),
      })
      .optional(),
  }),
});
export type RetrievalTestOutput = z.infer<typeof RetrievalTestOutput>;
