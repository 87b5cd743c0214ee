// Flows: the graph document, its rules and how it reads back (a KindSpec of builder-kinds.ts).
import { isUuid } from "@/schemas/common";
import type { z } from "zod";
import { FlowDocument, FlowPatch, type FlowInput, type FlowNode } from "@/schemas/builder/builder";
import { AppError, invalidRequest, type Problem } from "@/server/errors";
import { flowFeedback, flowReferences, inputSchemaOf, type Feedback } from "@/schemas/builder/flow-graph";
import { availableModels } from "@/server/runtime/models";
import { ownKnowledgebases, type Doc, type KindSpec, type Reader } from "./builder-kind-shared";

/**
 * The graph rules, then every id a node holds must be the organization's. A draft being written
 * may hold nodes still missing their data (`allowIncomplete`); publishing may not.
 */
async function checkFlow(
  db: Reader,
  organizationId: string,
  doc: Doc,
  options: { allowIncomplete?: boolean } = {},
): Promise<void> {
  const nodes = doc.nodes as FlowNode[];
  const modelIds = new Set((await availableModels(db, organizationId)).map((model) => model.id));
  const feedback: Feedback[] = flowFeedback(nodes, modelIds, options);
  const references = flowReferences(nodes);
  const knowledgebases = references.filter((reference) => reference.kind === "knowledgebase" && isUuid(reference.id));
  const found = await ownKnowledgebases(
    db,
    organizationId,
    knowledgebases.map((reference) => reference.id),
  );
  const connections = references.filter((reference) => reference.kind === "MCP connection");
  const slugs = new Set(
    connections.length
      ? (
          await db.mcpConnection.findMany({
            where: { organizationId, slug: { in: [...new Set(connections.map((reference) => reference.id))] } },
            select: { slug: true },
          })
        ).map((row) => row.slug)
      : [],
  );
  for (const reference of knowledgebases) {
    if (!found.has(reference.id))
      feedback.push({
        nodeId: reference.nodeId,
        message: `data.${reference.field} names no ${reference.kind} of this organization`,
      });
  }
  for (const reference of connections) {
    if (!slugs.has(reference.id))
      feedback.push({
        nodeId: reference.nodeId,
        message: `data.${reference.field} names no ${reference.kind} of this organization ("${reference.id}")`,
      });
  }
  if (feedback.length > 0) {
    const first = feedback[0]!;
    throw new AppError(
      "invalid_workflow",
      `The flow is not valid: ${first.nodeId ? `node ${first.nodeId}: ` : ""}${first.message}${feedback.length > 1 ? ` (and ${feedback.length - 1} more)` : ""}. Nothing was written.`,
      { feedback },
    );
  }
}

export const flowSpec: KindSpec = {
  kind: "flow",
  plural: "flows",
  document: FlowDocument as unknown as z.ZodType<Doc>,
  patch: FlowPatch as unknown as z.ZodType<Doc>,
  mergeKeys: [],
  normalize: (doc) => doc,
  async validateDraft(db, organizationId, doc, changed) {
    if (changed.has("inputs")) {
      const keys = new Set<string>();
      const problems: Problem[] = [];
      (doc.inputs as FlowInput[]).forEach((input, index) => {
        if (keys.has(input.key))
          problems.push({ path: `inputs.${index}.key`, message: `Input key "${input.key}" is used more than once` });
        keys.add(input.key);
      });
      if (problems.length > 0) throw invalidRequest(problems);
    }
    if (changed.has("nodes")) await checkFlow(db, organizationId, doc, { allowIncomplete: true });
  },
  async validatePublish(db, organizationId, doc) {
    await checkFlow(db, organizationId, doc);
    return null;
  },
  render: async (_db, _organizationId, docs) =>
    docs.map((doc) => ({ ...doc, inputSchema: inputSchemaOf(doc.inputs as FlowInput[]) })),
  listRow: (doc) => ({
    name: doc.name,
    slug: doc.slug,
    description: doc.description,
    kind: doc.kind,
    inputs: doc.inputs,
    inputSchema: inputSchemaOf(doc.inputs as FlowInput[]),
  }),
  type: (doc) => String(doc.kind),
};
