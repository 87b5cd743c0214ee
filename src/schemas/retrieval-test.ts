import { z } from "zod";
import { messageText, Uuid } from "./common";

/** A question asked of one knowledgebase in the console, to see what an agent would receive. */
export const RetrievalTestInput = z.strictObject({ knowledgebaseId: Uuid, question: messageText });
export const RetrievalTestOutput = z.object({
  passages: z.array(z.object({ title: z.string(), text: z.string() })),
  /** Which ranking answered and why (src/server/services/retrieval.ts, RetrievalPath). */
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
  }),
});
export type RetrievalTestOutput = z.infer<typeof RetrievalTestOutput>;
