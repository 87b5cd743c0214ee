// Agents: the draft document, its rules and how it reads back (a KindSpec of builder-kinds.ts).
import type { z } from "zod";
import { AgentDocument, AgentPatch } from "@/schemas/builder/builder";
import type { Problem } from "@/server/errors";
import { checkBuiltIns } from "@/server/runtime/built-ins";
import {
  checkModel,
  itemsById,
  ownKnowledgebases,
  refuseReferences,
  type Doc,
  type KindSpec,
  type MissingReference,
  type Reader,
} from "./builder-kind-shared";

/** The agent's knowledgebases, flows and integrations' MCP connections (those among `fields`) must be the organization's. */
async function checkAgentReferences(db: Reader, organizationId: string, doc: Doc, fields: Set<string>): Promise<void> {
  const problems: Problem[] = [];
  const missing: MissingReference[] = [];
  if (fields.has("knowledge")) {
    const knowledge = doc.knowledge as { knowledgebaseId: string }[];
    const found = await ownKnowledgebases(
      db,
      organizationId,
      knowledge.map((k) => k.knowledgebaseId),
    );
    knowledge.forEach((k, index) => {
      if (!found.has(k.knowledgebaseId))
        missing.push({
          code: "knowledgebase_not_found",
          path: `knowledge.${index}.knowledgebaseId`,
          message: "No knowledgebase with this id in the organization",
        });
    });
  }
  if (fields.has("flows")) {
    const flows = doc.flows as string[];
    const items = await itemsById(db, organizationId, flows);
    flows.forEach((id, index) => {
      if (items.get(id)?.kind !== "flow")
        missing.push({
          code: "flow_not_found",
          path: `flows.${index}`,
          message: "No flow with this id in the organization",
        });
    });
  }
  if (fields.has("integrations")) {
    const toolkits = (doc.integrations as { toolkit: string }[]).map((integration) => integration.toolkit);
    const rows = toolkits.length
      ? await db.mcpConnection.findMany({
          where: { organizationId, slug: { in: [...new Set(toolkits)] } },
          select: { slug: true },
        })
      : [];
    const found = new Set(rows.map((row) => row.slug));
    toolkits.forEach((toolkit, index) => {
      if (!found.has(toolkit))
        missing.push({
          code: "mcp_connection_not_found",
          path: `integrations.${index}.toolkit`,
          message: `No MCP connection "${toolkit}" in the organization`,
        });
      else if (toolkits.indexOf(toolkit) !== index)
        problems.push({ path: `integrations.${index}.toolkit`, message: "Listed twice" });
    });
  }
  refuseReferences(problems, missing);
}

export const agentSpec: KindSpec = {
  kind: "agent",
  plural: "agents",
  document: AgentDocument as unknown as z.ZodType<Doc>,
  patch: AgentPatch as unknown as z.ZodType<Doc>,
  mergeKeys: ["identity", "builtIns"],
  normalize: (doc) => doc,
  async validateDraft(db, organizationId, doc, changed) {
    if (changed.has("model")) await checkModel(db, organizationId, doc.model);
    if (changed.has("fallbackModels"))
      for (const model of (doc.fallbackModels as string[] | undefined) ?? [])
        await checkModel(db, organizationId, model);
    if (changed.has("builtIns")) checkBuiltIns(doc.builtIns as Record<string, boolean>);
    await checkAgentReferences(db, organizationId, doc, changed);
  },
  async validatePublish(db, organizationId, doc) {
    await checkModel(db, organizationId, doc.model);
    for (const model of (doc.fallbackModels as string[] | undefined) ?? []) await checkModel(db, organizationId, model);
    // A draft written while the deployment provided a built-in may outlive it.
    checkBuiltIns(doc.builtIns as Record<string, boolean>);
    await checkAgentReferences(db, organizationId, doc, new Set(["knowledge", "flows", "integrations"]));
    return null;
  },
  async render(db, organizationId, docs) {
    const ids = docs.flatMap((doc) => (doc.knowledge as { knowledgebaseId: string }[]).map((k) => k.knowledgebaseId));
    const rows = ids.length
      ? await db.knowledgebase.findMany({
          where: { organizationId, endUserId: null, id: { in: [...new Set(ids)] } },
          select: { id: true, name: true },
        })
      : [];
    const titles = new Map(rows.map((row) => [row.id, row.name]));
    return docs.map((doc) => ({
      ...doc,
      knowledge: (doc.knowledge as { knowledgebaseId: string }[]).map((k) => ({
        knowledgebaseId: k.knowledgebaseId,
        title: titles.get(k.knowledgebaseId) ?? "",
      })),
    }));
  },
  listRow: (doc) => ({
    name: doc.name,
    slug: doc.slug,
    description: doc.description,
    model: doc.model,
    conversationStarters: doc.conversationStarters,
    questions: doc.questions,
  }),
  type: () => "agent",
};
