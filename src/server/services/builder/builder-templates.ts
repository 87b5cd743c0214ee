// Starter flows and apps a builder copies: each template is a flow and an app that calls it,
// written into the organization as unpublished drafts through createItem, so every rule of a
// draft (graph, references, names) applies to the copy as to a draft typed by hand. Each one
// runs on the built-in model; a template whose node type this deployment lacks is not offered.
import type {
  BuilderTemplate,
  CopyBuilderTemplateInput,
  CopyBuilderTemplateOutput,
} from "@/schemas/builder/builder-templates";
import { NODE_TYPES } from "@/schemas/builder/builder";
import type { Actor } from "@/server/auth/actor";
import { authorize } from "@/server/auth/authorize";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { createItem } from "./builder";
import { writesKind } from "../support/builder-kinds";
import { ownKnowledgebases } from "../support/builder-kind-shared";

type Doc = Record<string, unknown>;

interface TemplateSpec extends Omit<BuilderTemplate, "nodeTypes"> {
  flow(options: { knowledgebaseId?: string }): Doc;
  app(flowId: string): Doc;
}

const text = (key: string, label: string) => ({ key, label, type: "text", required: true });
const node = (id: string, type: string, data: Doc = {}) => ({ id, type, data });
const stringInput = (key: string) => ({
  type: "object",
  required: [key],
  properties: { [key]: { type: "string", minLength: 1 } },
});
/** An app running the flow alone, in order: conversation, transaction or both. */
const appOver = (name: string, description: string, flowId: string, api: Doc): Doc => ({
  name,
  description,
  orchestrationMode: "sequential",
  members: [{ id: flowId, kind: "flow" }],
  api,
});

const TEMPLATES: TemplateSpec[] = [
  {
    id: "support-answer",
    name: "Support answer with citations",
    description:
      "Searches a knowledgebase for the question, answers from the passages found and lists them as sources.",
    needsKnowledgebase: true,
    afterCopying: null,
    flow: ({ knowledgebaseId }) => ({
      name: "Support answer",
      description: "Answers a support question from the knowledgebase, with its sources.",
      inputs: [text("question", "Question")],
      nodes: [
        node("start", "trigger_start"),
        node("search", "knowledge_search", {
          title: "Search the knowledgebase",
          query: "{{inputs.question}}",
          ...(knowledgebaseId ? { knowledgebaseId } : {}),
        }),
        node("answer", "llm", {
          title: "Answer from the passages",
          prompt:
            "Answer the question using only the passages below, and say which passages you used.\n\nQuestion: {{inputs.question}}\n\nPassages:\n{{nodes.search.output}}",
        }),
        node("sources", "code", {
          title: "List the sources",
          code: [
            "const found = input.nodes.search.output;",
            'if (!found) return "No passages found.";',
            'return found.split("\\n\\n").map((passage, i) => `[${i + 1}] ${passage.split(": ")[0]}`).join("\\n");',
          ].join("\n"),
        }),
        node("reply", "output", { value: "{{nodes.answer.output}}\n\nSources:\n{{nodes.sources.output}}" }),
      ],
    }),
    app: (flowId) =>
      appOver("Support desk", "Answers customers' questions from the knowledgebase.", flowId, {
        conversationEnabled: true,
        greeting: "Hello! Ask me anything about our products and policies.",
      }),
  },
  {
    id: "triage",
    name: "Triage with a condition",
    description: "Marks a message urgent when it says so, then escalates it or acknowledges it: two branches.",
    needsKnowledgebase: false,
    afterCopying: null,
    flow: () => ({
      name: "Triage",
      description: "Escalates urgent messages, acknowledges the others.",
      inputs: [text("message", "Message")],
      nodes: [
        node("start", "trigger_start"),
        node("urgency", "set_variable", {
          title: "Is it urgent?",
          name: "urgent",
          expression: {
            or: ["urgent", "Urgent", "URGENT", "outage", "down"].map((word) => ({
              in: [word, { var: "inputs.message" }],
            })),
          },
        }),
        node("route", "condition", {
          title: "Urgent or routine",
          branches: [{ name: "urgent", when: { var: "vars.urgent" }, next: "escalate" }],
          else: "acknowledge",
        }),
        node("escalate", "template", {
          title: "Escalate",
          template: "Escalated to the on-call team: {{inputs.message}}",
          next: "escalated",
        }),
        node("escalated", "output", { value: "{{nodes.escalate.output}}" }),
        node("acknowledge", "template", {
          title: "Acknowledge",
          template: "Thank you. Your request is logged and we will reply within one working day.",
        }),
        node("acknowledged", "output", { value: "{{nodes.acknowledge.output}}" }),
      ],
    }),
    app: (flowId) =>
      appOver("Triage desk", "Sorts incoming messages into urgent and routine.", flowId, {
        transactionEnabled: true,
        inputSchema: stringInput("message"),
      }),
  },
  {
    id: "http-lookup",
    name: "Lookup through HTTP",
    description: "Calls an HTTP endpoint with the order number and says the status it answers.",
    needsKnowledgebase: false,
    afterCopying: "Replace the example URL of “Look up the order” with your own endpoint.",
    flow: () => ({
      name: "Order lookup",
      description: "Looks an order up through an HTTP API and says its status.",
      inputs: [text("orderId", "Order number")],
      nodes: [
        node("start", "trigger_start"),
        node("lookup", "http_request", {
          title: "Look up the order",
          method: "GET",
          url: "https://example.com/orders/{{inputs.orderId}}",
        }),
        node("status", "set_variable", {
          title: "Read the status",
          name: "status",
          expression: { var: "nodes.lookup.json.status" },
        }),
        node("reply", "output", { value: "Order {{inputs.orderId}} is {{vars.status}}." }),
      ],
    }),
    app: (flowId) =>
      appOver("Order status", "Answers an order's status from the order system.", flowId, {
        transactionEnabled: true,
        inputSchema: stringInput("orderId"),
      }),
  },
  {
    id: "approval-before-action",
    name: "Approval before an action",
    description: "Prepares a refund, waits for a person to approve it, then confirms it.",
    needsKnowledgebase: false,
    afterCopying: "Choose who approves in the “Ask an approver” step.",
    flow: () => ({
      name: "Refund with approval",
      description: "A refund goes ahead only once a person approves it.",
      inputs: [text("request", "Refund request")],
      nodes: [
        node("start", "trigger_start"),
        node("prepare", "template", { title: "Prepare the refund", template: "Refund requested: {{inputs.request}}" }),
        node("approve", "approval", { title: "Ask an approver" }),
        node("confirm", "template", { title: "Confirm", template: "Approved. {{nodes.prepare.output}}" }),
        node("reply", "output", { value: "{{nodes.confirm.output}}" }),
      ],
    }),
    app: (flowId) =>
      appOver("Refund desk", "Refunds that a person approves first.", flowId, {
        transactionEnabled: true,
        inputSchema: stringInput("request"),
      }),
  },
  {
    id: "summariser",
    name: "Summariser",
    description: "Summarises a text in a few sentences.",
    needsKnowledgebase: false,
    afterCopying: null,
    flow: () => ({
      name: "Summariser",
      description: "Summarises the text it is given.",
      inputs: [text("text", "Text")],
      nodes: [
        node("start", "trigger_start"),
        node("summary", "llm", {
          title: "Summarise",
          prompt: "Summarise the text below in three sentences.\n\n{{inputs.text}}",
        }),
        node("reply", "output", { value: "{{nodes.summary.output}}" }),
      ],
    }),
    app: (flowId) =>
      appOver("Summaries", "Summarises texts.", flowId, {
        conversationEnabled: true,
        transactionEnabled: true,
        inputSchema: stringInput("text"),
      }),
  },
];

function nodeTypesOf(spec: TemplateSpec): string[] {
  const nodes = spec.flow({}).nodes as { type: string }[];
  return [...new Set(nodes.map((n) => n.type))];
}

/** Offered only when this deployment knows every node type it uses (`approval` may come later). */
function offered(): TemplateSpec[] {
  return TEMPLATES.filter((spec) =>
    nodeTypesOf(spec).every((type) => (NODE_TYPES as readonly string[]).includes(type)),
  );
}

export const listBuilderTemplates = guarded(
  { scope: "flows:read" },
  async function listBuilderTemplates(_db: Db, _actor: Actor): Promise<{ templates: BuilderTemplate[] }> {
    return {
      templates: offered().map((spec) => ({
        id: spec.id,
        name: spec.name,
        description: spec.description,
        nodeTypes: nodeTypesOf(spec),
        needsKnowledgebase: spec.needsKnowledgebase,
        afterCopying: spec.afterCopying,
      })),
    };
  },
);

/**
 * Copies a template into the organization: its flow, then an app calling it, both unpublished
 * drafts. A knowledgebase must be the organization's (not an end user's notebook), checked before
 * anything is written; apps:write is checked first too, so a key that may only write flows
 * leaves no half copy.
 */
export const copyBuilderTemplate = guarded(
  writesKind("flow"),
  async function copyBuilderTemplate(
    db: Db,
    actor: Actor,
    input: CopyBuilderTemplateInput,
  ): Promise<CopyBuilderTemplateOutput> {
    authorize(actor, writesKind("app"));
    const spec = offered().find((template) => template.id === input.templateId);
    if (!spec) throw new AppError("not_found", `No template "${input.templateId}".`);
    if (input.knowledgebaseId !== undefined) {
      if (!spec.needsKnowledgebase)
        throw new AppError("invalid_request", "This template reads no knowledgebase.", {
          problems: [{ path: "knowledgebaseId", message: "This template reads no knowledgebase" }],
        });
      const own = await ownKnowledgebases(db, actor.organizationId, [input.knowledgebaseId]);
      if (!own.has(input.knowledgebaseId))
        throw new AppError("knowledgebase_not_found", "No knowledgebase with this id in the organization.", {
          problems: [{ path: "knowledgebaseId", message: "No knowledgebase with this id in the organization" }],
        });
    }
    const flow = await createItem(db, actor, "flow", spec.flow({ knowledgebaseId: input.knowledgebaseId }));
    const app = await createItem(db, actor, "app", spec.app(String(flow.id)));
    return {
      flow: { id: String(flow.id), name: String(flow.name) },
      app: { id: String(app.id), name: String(app.name) },
    };
  },
);
