// What differs between agents, flows and apps: the draft document, the rules a draft and a
// publish must pass, how a stored document reads back (titles and names of what it references)
// and its list row. The modules of services/builder/ do the rest once for all three.
import { isUuid } from "@/schemas/common";
import type { z } from "zod";
import {
  AgentDocument,
  AgentPatch,
  AppDocument,
  AppPatch,
  FlowDocument,
  FlowPatch,
  type BuilderKind,
  type FlowInput,
  type FlowNode,
} from "@/schemas/builder/builder";
import { MAX_APP_SCHEMA_CHARS } from "@/schemas/limits";
import type { Requirement } from "@/server/auth/authorize";
import type { Db } from "@/server/db";
import { AppError, invalidRequest, type ErrorCode, type Problem } from "@/server/errors";
import { flowFeedback, flowReferences, inputSchemaOf, type Feedback } from "@/schemas/builder/flow-graph";
import { checkBuiltIns } from "@/server/runtime/built-ins";
import { schemaCompileProblem } from "@/server/runtime/json-schema";
import { availableModels, isAvailableModel } from "@/server/runtime/models";

export type Doc = Record<string, unknown>;

/** What the kind rules read: the client, or the publish transaction holding the item's lock. */
export type Reader = Pick<Db, "builderItem" | "knowledgebase" | "modelProvider" | "mcpConnection">;

/** Pins an app version holds: the production version of its adviser and each member when published. */
export interface AppPins {
  adviser: { id: string; versionId: string } | null;
  members: { id: string; kind: "agent" | "flow"; versionId: string }[];
}

export interface KindSpec {
  kind: BuilderKind;
  plural: "agents" | "flows" | "apps";
  document: z.ZodType<Doc>;
  patch: z.ZodType<Doc>;
  /** Nested objects a PATCH merges into rather than replaces. */
  mergeKeys: readonly string[];
  /** Puts a document in canonical form before it is parsed (e.g. members ordered by position). */
  normalize(doc: Doc): Doc;
  /** Rules a draft write must pass; `changed` are the top-level fields written. */
  validateDraft(db: Db, organizationId: string, doc: Doc, changed: Set<string>): Promise<void>;
  /** Rules a publish must pass, and (apps) the pins to store with the version. */
  validatePublish(db: Reader, organizationId: string, doc: Doc): Promise<AppPins | null>;
  /** The documents as the API shows them: referenced titles and names read back. */
  render(db: Db, organizationId: string, docs: Doc[], pins?: (AppPins | null)[]): Promise<Doc[]>;
  /** Every field a list row of this kind can carry, from the document. */
  listRow(doc: Doc): Doc;
  /** `type` of the publish summary. */
  type(doc: Doc): string;
}

async function checkModel(db: Reader, organizationId: string, model: unknown): Promise<void> {
  if (typeof model === "string" && !(await isAvailableModel(db, organizationId, model))) {
    throw new AppError(
      "invalid_model",
      `Model "${model}" is not available; GET /models lists the usable ones. Nothing was written.`,
      { model },
    );
  }
}

/** Items of a kind in the organization, by id. */
async function itemsById(db: Reader, organizationId: string, ids: string[]) {
  if (ids.length === 0)
    return new Map<string, { id: string; kind: BuilderKind; draft: Doc; productionVersionId: string | null }>();
  const rows = await db.builderItem.findMany({
    where: { organizationId, id: { in: [...new Set(ids)] } },
    select: { id: true, kind: true, draft: true, productionVersionId: true },
  });
  return new Map(rows.map((row) => [row.id, { ...row, draft: row.draft as Doc }]));
}

/** Which of these ids are knowledgebases of the organization (never an end user's notebook). */
export async function ownKnowledgebases(db: Reader, organizationId: string, ids: string[]): Promise<Set<string>> {
  const wanted = [...new Set(ids.filter((id) => isUuid(id)))];
  if (wanted.length === 0) return new Set();
  const rows = await db.knowledgebase.findMany({
    where: { organizationId, endUserId: null, id: { in: wanted } },
    select: { id: true },
  });
  return new Set(rows.map((row) => row.id));
}

/** A reference a draft holds to something the organization does not have (missing, or another organization's). */
interface MissingReference extends Problem {
  code: Extract<
    ErrorCode,
    "agent_not_found" | "flow_not_found" | "knowledgebase_not_found" | "mcp_connection_not_found"
  >;
}

/**
 * The one rule for references, as for groups and end users: malformed input is invalid_request
 * first, then a reference to nothing is 422 `<kind>_not_found` (the first one's kind), with
 * `problems` naming every missing reference. Nothing is written.
 */
function refuseReferences(problems: Problem[], missing: MissingReference[]): void {
  if (problems.length > 0) throw invalidRequest(problems);
  if (missing.length === 0) return;
  const first = missing[0]!;
  const more = missing.length > 1 ? ` (and ${missing.length - 1} more)` : "";
  throw new AppError(first.code, `${first.path}: ${first.message}${more}. Nothing was written.`, {
    problems: missing.map(({ path, message }) => ({ path, message })),
  });
}

function nameOf(doc: Doc | undefined): string {
  return typeof doc?.name === "string" ? doc.name : "";
}

// ---------------------------------------------------------------------------------------------
// Agents

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

const agentSpec: KindSpec = {
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

// ---------------------------------------------------------------------------------------------
// Flows

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

const flowSpec: KindSpec = {
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

// ---------------------------------------------------------------------------------------------
// Apps

type AppMember = { id: string; kind: "agent" | "flow"; position: number };

function checkJsonSchema(value: unknown, path: string, problems: Problem[]): void {
  const schema = value as Doc;
  const type = schema.type;
  if (type !== undefined && typeof type !== "string" && !Array.isArray(type))
    problems.push({ path, message: "Not a JSON Schema: `type` must be a string or an array" });
  if (
    schema.properties !== undefined &&
    (typeof schema.properties !== "object" || schema.properties === null || Array.isArray(schema.properties))
  ) {
    problems.push({ path, message: "Not a JSON Schema: `properties` must be an object" });
  }
  if (
    schema.required !== undefined &&
    !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === "string"))
  ) {
    problems.push({ path, message: "Not a JSON Schema: `required` must be an array of strings" });
  }
  if (JSON.stringify(schema).length > MAX_APP_SCHEMA_CHARS) {
    problems.push({
      path,
      message: `Too large: a JSON Schema is at most ${MAX_APP_SCHEMA_CHARS.toLocaleString("en")} characters as JSON`,
    });
  }
  // Refused here rather than failing every transaction that reads it; a schema too large is not compiled.
  if (!problems.some((problem) => problem.path === path)) {
    const compileProblem = schemaCompileProblem(schema);
    if (compileProblem) problems.push({ path, message: `Not a usable JSON Schema: ${compileProblem}` });
  }
}

const appSpec: KindSpec = {
  kind: "app",
  plural: "apps",
  document: AppDocument as unknown as z.ZodType<Doc>,
  patch: AppPatch as unknown as z.ZodType<Doc>,
  mergeKeys: ["api"],
  normalize(doc) {
    if (!Array.isArray(doc.members)) return doc;
    const members = (doc.members as (Omit<AppMember, "position"> & { position?: number })[]).map((member, index) => ({
      id: member.id,
      kind: member.kind,
      position: member.position ?? index,
    }));
    members.sort((a, b) => a.position - b.position);
    return { ...doc, members };
  },
  async validateDraft(db, organizationId, doc, changed) {
    const problems: Problem[] = [];
    const missing: MissingReference[] = [];
    const adviser = doc.adviser as { id: string } | null;
    const members = doc.members as AppMember[];
    const items = await itemsById(db, organizationId, [
      ...(adviser && changed.has("adviser") ? [adviser.id] : []),
      ...(changed.has("members") ? members.map((m) => m.id) : []),
    ]);
    if (changed.has("adviser") && adviser && items.get(adviser.id)?.kind !== "agent")
      missing.push({
        code: "agent_not_found",
        path: "adviser.id",
        message: "No agent with this id in the organization",
      });
    if (changed.has("members")) {
      const seen = new Set<string>();
      members.forEach((member, index) => {
        if (seen.has(member.id))
          problems.push({ path: `members.${index}.id`, message: "This member is listed more than once" });
        else if (items.get(member.id)?.kind !== member.kind)
          missing.push({
            code: `${member.kind}_not_found`,
            path: `members.${index}.id`,
            message: `No ${member.kind} with this id in the organization`,
          });
        seen.add(member.id);
      });
    }
    if (changed.has("api")) {
      const api = doc.api as { inputSchema: unknown; outputSchema: unknown };
      checkJsonSchema(api.inputSchema, "api.inputSchema", problems);
      checkJsonSchema(api.outputSchema, "api.outputSchema", problems);
    }
    refuseReferences(problems, missing);
  },
  async validatePublish(db, organizationId, doc) {
    const adviser = doc.adviser as { id: string } | null;
    const members = doc.members as AppMember[];
    const wanted = [...(adviser ? [{ id: adviser.id, kind: "agent" as const }] : []), ...members];
    const items = await itemsById(
      db,
      organizationId,
      wanted.map((w) => w.id),
    );
    const dependencies = wanted
      .filter((w) => items.get(w.id)?.kind !== w.kind || !items.get(w.id)?.productionVersionId)
      .map((w) => ({
        id: w.id,
        kind: w.kind,
        name: items.get(w.id)?.kind === w.kind ? nameOf(items.get(w.id)!.draft) : "(deleted)",
      }));
    if (dependencies.length > 0) {
      throw new AppError(
        "unpublished_dependencies",
        `Publish these first: ${dependencies.map((d) => `${d.kind} "${d.name}"`).join(", ")}. Nothing was written.`,
        { dependencies },
      );
    }
    return {
      adviser: adviser ? { id: adviser.id, versionId: items.get(adviser.id)!.productionVersionId! } : null,
      members: members.map((member) => ({
        id: member.id,
        kind: member.kind,
        versionId: items.get(member.id)!.productionVersionId!,
      })),
    };
  },
  async render(db, organizationId, docs, pins) {
    const ids = docs.flatMap((doc) => [
      ...(doc.adviser ? [(doc.adviser as { id: string }).id] : []),
      ...(doc.members as AppMember[]).map((m) => m.id),
    ]);
    const items = await itemsById(db, organizationId, ids);
    return docs.map((doc, index) => {
      const pin = pins?.[index] ?? null;
      const ref = (id: string, versionId: string | undefined) => ({
        id,
        name: nameOf(items.get(id)?.draft),
        published: Boolean(items.get(id)?.productionVersionId),
        ...(pin ? { versionId: versionId ?? null } : {}),
      });
      const adviser = doc.adviser as { id: string } | null;
      return {
        ...doc,
        adviser: adviser ? ref(adviser.id, pin?.adviser?.versionId) : null,
        members: (doc.members as AppMember[]).map((member) => ({
          ...ref(member.id, pin?.members.find((p) => p.id === member.id)?.versionId),
          kind: member.kind,
          position: member.position,
        })),
      };
    });
  },
  listRow: (doc) => {
    const api = doc.api as { conversationEnabled: boolean; transactionEnabled: boolean };
    return {
      name: doc.name,
      slug: doc.slug,
      description: doc.description,
      orchestrationMode: doc.orchestrationMode,
      conversationEnabled: api.conversationEnabled,
      transactionEnabled: api.transactionEnabled,
    };
  },
  type: () => "app",
};

export const KIND_SPECS: Record<BuilderKind, KindSpec> = { agent: agentSpec, flow: flowSpec, app: appSpec };

/** Reading a kind's items needs its read scope (`agents:read`…). */
export function readsKind(kind: BuilderKind): Requirement {
  return { scope: `${KIND_SPECS[kind].plural}:read` };
}

/** Writing a kind's items (drafts, publishing, rollback, tests) needs its write scope (`agents:write`…). */
export function writesKind(kind: BuilderKind): Requirement {
  return { scope: `${KIND_SPECS[kind].plural}:write` };
}
