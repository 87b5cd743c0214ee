import { z } from "zod";
import { messageText, Uuid } from "./common";

/** A question asked of one knowledgebase in the console, to see what an agent would receive. */
export const RetrievalTestInput = z.strictObject({ knowledgebaseId: Uuid, question: messageText });
export const RetrievalTestOutput = z.object({
  passages: z.array(z.object({ title: z.string(), text: z.string() })),
});
export type RetrievalTestOutput = z.infer<typeof RetrievalTestOutput>;
