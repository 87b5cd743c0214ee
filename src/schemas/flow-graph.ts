// The flow graph rules, shared by the server (invalid_workflow) and the console's flow editor
// (live feedback): exactly one trigger_start, unique node ids, known types with their required
// data, `data.next` naming existing nodes and forming no cycle, templates reading only nodes
// that run before them, a bounded `data.position` (the canvas's place for a node) and `data.title`
// (the name the console shows).
import { NODE_TYPES, type FlowInput, type FlowNode, type NodeType } from "./builder";
import { MAX_NODE_POSITION, MAX_NODE_TITLE_CHARS } from "./limits";

export interface Feedback {
  nodeId?: string;
  message: string;
}

/** Each type's required data fields, with what a builder is told a node lacks ("needs a prompt"). */
const REQUIRED_DATA: Record<string, { field: string; need: string }[]> = {
  trigger_start: [],
  llm: [{ field: "prompt", need: "a prompt" }],
  knowledge_search: [
    { field: "knowledgebaseId", need: "a knowledgebase" },
    { field: "query", need: "a query" },
  ],
  template: [{ field: "template", need: "a template" }],
  output: [{ field: "value", need: "a value" }],
};

/**
 * What each node still lacks: a draft may hold such nodes (the canvas shows them quietly);
 * publishing and running refuse them.
 */
export function incompleteNodes(nodes: FlowNode[]): { nodeId: string; field: string; need: string; message: string }[] {
  return nodes.flatMap((node) =>
    (REQUIRED_DATA[node.type] ?? []).flatMap(({ field, need }) => {
      const value = node.data[field];
      return typeof value === "string" && value.trim() !== ""
        ? []
        : [{ nodeId: node.id, field, need, message: `A ${node.type} node needs data.${field} (a non-empty string)` }];
    }),
  );
}

/**
 * The data fields of each node type that hold the id of something the organization owns. The
 * server checks each against the organization when a draft is written and when it is published.
 */
export const NODE_REFERENCES: Record<NodeType, readonly { field: string; kind: "knowledgebase" }[]> = {
  trigger_start: [],
  llm: [],
  knowledge_search: [{ field: "knowledgebaseId", kind: "knowledgebase" }],
  template: [],
  output: [],
};

/** Every id a flow's nodes hold, with the node and field holding it. */
export function flowReferences(
  nodes: FlowNode[],
): { nodeId: string; field: string; kind: "knowledgebase"; id: string }[] {
  return nodes.flatMap((node) =>
    (NODE_REFERENCES[node.type as NodeType] ?? []).flatMap((reference) => {
      const id = node.data[reference.field];
      return typeof id === "string" ? [{ nodeId: node.id, field: reference.field, kind: reference.kind, id }] : [];
    }),
  );
}

/** Whether text holds a control character (a line break, a tab…): a title is one line. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

const NODE_READ = /\{\{\s*nodes\.([A-Za-z0-9_-]+)(?:\.output)?\s*\}\}/g;

/** One step the run can take, by node index; `inOrder` when it is the array order (no `data.next`). */
export interface FlowEdge {
  from: number;
  to: number;
  inOrder: boolean;
}

/**
 * Where the run can go from each node: the nodes `data.next` names, else the next one in the
 * array; an output node ends the run. The canvas draws these; validation walks them.
 */
export function flowEdges(nodes: FlowNode[]): FlowEdge[] {
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  return nodes.flatMap((node, i): FlowEdge[] => {
    if (node.type === "output") return [];
    const next = node.data.next;
    if (next === undefined) return i + 1 < nodes.length ? [{ from: i, to: i + 1, inOrder: true }] : [];
    return (Array.isArray(next) ? next : [next]).flatMap((id) =>
      typeof id === "string" && index.has(id) ? [{ from: i, to: index.get(id)!, inOrder: false }] : [],
    );
  });
}

/** Whether a step of the run lies on a cycle: its target leads back to its source (the canvas marks those). */
export function onCycle(nodes: FlowNode[]): (edge: FlowEdge) => boolean {
  const reach = reachable(successors(nodes));
  return (edge) => edge.from === edge.to || reach[edge.to]!.has(edge.from);
}

/** The ids of the nodes that always run before node `index` (those it may read), in list order. */
export function upstreamNodeIds(nodes: FlowNode[], index: number): string[] {
  const reach = reachable(successors(nodes));
  return nodes.flatMap((node, i) => (i !== index && reach[i]!.has(index) && !reach[index]!.has(i) ? [node.id] : []));
}

function successors(nodes: FlowNode[]): number[][] {
  const edges = nodes.map((): number[] => []);
  for (const edge of flowEdges(nodes)) edges[edge.from]!.push(edge.to);
  return edges;
}

function isPosition(value: unknown): boolean {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return (
    keys.length === 2 &&
    (["x", "y"] as const).every((axis) => {
      const at = (value as Record<string, unknown>)[axis];
      return typeof at === "number" && Number.isFinite(at) && Math.abs(at) <= MAX_NODE_POSITION;
    })
  );
}

/** For each node, the set of nodes the run can reach from it in one step or more. */
function reachable(edges: number[][]): Set<number>[] {
  return edges.map((start) => {
    const seen = new Set<number>();
    const stack = [...start];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (seen.has(at)) continue;
      seen.add(at);
      stack.push(...edges[at]!);
    }
    return seen;
  });
}

/**
 * Every problem of a flow's nodes, each naming its node; empty when the flow is valid. With
 * `allowIncomplete` (a draft being written), missing required data is not a problem: only the
 * structure is (see incompleteNodes).
 */
export function flowFeedback(
  nodes: FlowNode[],
  models: ReadonlySet<string>,
  options: { allowIncomplete?: boolean } = {},
): Feedback[] {
  const missing = options.allowIncomplete ? [] : incompleteNodes(nodes);
  const feedback: Feedback[] = [];
  const ids = new Set<string>();
  const seen = new Set<string>();
  for (const node of nodes) {
    if (seen.has(node.id))
      feedback.push({
        nodeId: node.id,
        message: `Node id "${node.id}" is used more than once; node ids must be unique`,
      });
    seen.add(node.id);
    ids.add(node.id);
  }
  const starts = nodes.filter((node) => node.type === "trigger_start");
  if (starts.length === 0) feedback.push({ message: "The flow needs exactly one trigger_start node; it has none" });
  for (const extra of starts.slice(1))
    feedback.push({ nodeId: extra.id, message: "The flow needs exactly one trigger_start node; this is another one" });
  for (const node of nodes) {
    if (!(NODE_TYPES as readonly string[]).includes(node.type)) {
      feedback.push({
        nodeId: node.id,
        message: `Unknown node type "${node.type}"; known types: ${NODE_TYPES.join(", ")}`,
      });
    } else {
      for (const gap of missing) if (gap.nodeId === node.id) feedback.push({ nodeId: node.id, message: gap.message });
      if (
        node.type === "knowledge_search" &&
        typeof node.data.knowledgebaseId === "string" &&
        node.data.knowledgebaseId !== "" &&
        !/^[0-9a-f-]{36}$/i.test(node.data.knowledgebaseId)
      ) {
        feedback.push({ nodeId: node.id, message: "data.knowledgebaseId must be a knowledgebase id (uuid)" });
      }
      if (
        node.type === "llm" &&
        node.data.model !== undefined &&
        (typeof node.data.model !== "string" || !models.has(node.data.model))
      ) {
        feedback.push({
          nodeId: node.id,
          message: `data.model "${String(node.data.model)}" is not a model from GET /models`,
        });
      }
    }
    if (node.data.position !== undefined && !isPosition(node.data.position)) {
      feedback.push({
        nodeId: node.id,
        message: `data.position must be {x, y}: two numbers from -${MAX_NODE_POSITION} to ${MAX_NODE_POSITION}`,
      });
    }
    const title = node.data.title;
    if (
      title !== undefined &&
      (typeof title !== "string" || title.length > MAX_NODE_TITLE_CHARS || hasControlCharacter(title))
    ) {
      feedback.push({
        nodeId: node.id,
        message: `data.title must be one line of text of at most ${MAX_NODE_TITLE_CHARS} characters`,
      });
    }
    const next = node.data.next;
    if (next !== undefined) {
      const targets = Array.isArray(next) ? next : [next];
      for (const target of targets) {
        if (typeof target !== "string" || !ids.has(target))
          feedback.push({
            nodeId: node.id,
            message: `data.next names "${String(target)}", which is not a node of this flow`,
          });
      }
    }
  }
  // A loop through data.next has no use (flows have no conditions) and would run forever.
  const reach = reachable(successors(nodes));
  const reported = new Set<number>();
  nodes.forEach((node, i) => {
    if (!reach[i]!.has(i) || reported.has(i)) return;
    const cycle = [...reach[i]!].filter((j) => reach[j]!.has(i)).sort((a, b) => a - b);
    const names = cycle.map((j) => nodes[j]!.id);
    for (const j of cycle) {
      reported.add(j);
      feedback.push({
        nodeId: nodes[j]!.id,
        message: `data.next forms a cycle through nodes ${names.join(" → ")} → ${names[0]}; a flow runs forward only`,
      });
    }
  });
  const position = new Map(nodes.map((node, i) => [node.id, i]));
  nodes.forEach((node, i) => {
    for (const [field, value] of Object.entries(node.data)) {
      if (typeof value !== "string") continue;
      for (const match of value.matchAll(NODE_READ)) {
        const read = match[1]!;
        const at = position.get(read);
        if (at === undefined)
          feedback.push({
            nodeId: node.id,
            message: `data.${field} reads {{nodes.${read}.output}}, but there is no node "${read}"`,
          });
        else if (!reported.has(i) && !reach[at]!.has(i)) {
          feedback.push({
            nodeId: node.id,
            message: `data.${field} reads {{nodes.${read}.output}}, but node "${read}" does not run before this one`,
          });
        }
      }
    }
  });
  return feedback;
}

const JSON_TYPES: Record<string, string> = {
  number: "number",
  integer: "integer",
  boolean: "boolean",
  checkbox: "boolean",
};

/** The JSON Schema of a flow's inputs (the published listing's `inputSchema`). */
export function inputSchemaOf(inputs: FlowInput[]): Record<string, unknown> {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const input of inputs) {
    const property: Record<string, unknown> =
      input.type === "multiselect"
        ? { type: "array", items: input.options.length ? { type: "string", enum: input.options } : { type: "string" } }
        : { type: JSON_TYPES[input.type] ?? "string", ...(input.options.length ? { enum: input.options } : {}) };
    if (input.label) property.title = input.label;
    if (input.description) property.description = input.description;
    properties[input.key] = property;
  }
  return {
    type: "object",
    properties,
    required: inputs.filter((input) => input.required).map((input) => input.key),
    additionalProperties: false,
  };
}
