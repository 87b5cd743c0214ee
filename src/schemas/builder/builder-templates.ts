// Starter flows and apps a builder copies into the organization (services/builder/builder-templates.ts).
import { z } from "zod";
import { Uuid } from "../common";

export const BuilderTemplate = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  /** The node types its flow uses, as the node library names them. */
  nodeTypes: z.array(z.string()),
  /** Whether copying asks for a knowledgebase (its knowledge search reads one). */
  needsKnowledgebase: z.boolean(),
  /** What to change after copying for it to run against something real. */
  afterCopying: z.string().nullable(),
});
export type BuilderTemplate = z.infer<typeof BuilderTemplate>;

export const ListBuilderTemplatesOutput = z.object({ templates: z.array(BuilderTemplate) });

export const CopyBuilderTemplateInput = z.strictObject({
  templateId: z.string().min(1).max(100),
  /** The knowledgebase a template's knowledge search reads; it must be one of the organization's. */
  knowledgebaseId: Uuid.optional(),
});
export type CopyBuilderTemplateInput = z.infer<typeof CopyBuilderTemplateInput>;

const Copied = z.object({ id: Uuid, name: z.string() });
export const CopyBuilderTemplateOutput = z.object({ flow: Copied, app: Copied });
export type CopyBuilderTemplateOutput = z.infer<typeof CopyBuilderTemplateOutput>;
