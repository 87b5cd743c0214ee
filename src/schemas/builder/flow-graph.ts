// The flow graph rules, shared by the server (invalid_workflow) and the console's flow editor
// (live feedback): exactly one trigger_start, unique node ids, known types with their required
// data, `data.next` naming existing nodes and forming no cycle, templates reading only nodes
// that run before them, a bounded `data.position` (the canvas's place for a node) and `data.title`
// (the name the console shows); and for the nodes that decide, call and compute, their `data`
// by NODE_DATA (builder.ts), JSON Logic expressions of bounded size and shape, and a loop's body.
import { LOOP_BODY_TYPES, NODE_DATA, NODE_TYPES, type FlowInput, type FlowNode, type NodeType } from "./builder";
import { MAX_EXPRESSION_CHARS, MAX_NODE_POSITION, MAX_NODE_TITLE_CHARS } from "../limits";

export interface Feedback {
  nodeId?: string;
  message: string;
}

/**
 * Each type's required data fields, with what a builder is told a node lacks ("needs a prompt"):
 * `text` a non-empty string, `list` a non-empty array, `value` anything present.
 */
const REQUIRED_DATA: Record<string, { field: string; need: string; kind?: "list" | "value" }[]> = {
  trigger_start: [],
  llm: [{ field: "prompt", need: "a prompt" }],
  knowledge_search: [
    { field: "knowledgebaseId", need: "a knowledgebase" },
    { field: "query", need: "a query" },
  ],
  template: [{ field: "template", need: "a template" }],
  output: [{ field: "value", need: "a value" }],
  condition: [{ field: "branches", need: "a branch", kind: "list" }],
  set_variable: [{ field: "name", need: "a variable name" }],
  loop: [
    { field: "items", need: "a list to loop over", kind: "value" },
    { field: "body", need: "a node to run for each item", kind: "list" },
  ],
  http_request: [{ field: "url", need: "a URL" }],
  code: [{ field: "code", need: "code" }],
  approval: [{ field: "message", need: "a message for the approvers" }],
};

const WHAT_IS_REQUIRED = { list: "a non-empty list", value: "a value" } as const;

function present(value: unknown, kind: "list" | "value" | undefined): boolean {
  if (kind === "list") return Array.isArray(value) && value.length > 0;
  if (kind === "value") return value !== undefined && value !== null && value !== "";
  return typeof value === "string" && value.trim() !== "";
}

/**
 * What each node still lacks (a loop's body nodes included): a draft may hold such nodes (the
 * canvas shows them quietly); publishing and running refuse them.
 */
export function incompleteNodes(nodes: FlowNode[]): { nodeId: string; field: string; need: string; message: string }[] {
  return nodes.flatMap((node) => [
    ...(REQUIRED_DATA[node.type] ?? []).flatMap(({ field, need, kind }) =>
      present(node.data[field], kind)
        ? []
        : [
            {
              nodeId: node.id,
              field,
              need,
              message: `A ${node.type} node needs data.${field} (${kind ? WHAT_IS_REQUIRED[kind] : "a non-empty string"})`,
            },
          ],
    ),
    ...(node.type === "set_variable" && node.data.value === undefined && node.data.expression === undefined
      ? [
          {
            nodeId: node.id,
            field: "value",
            need: "a value",
            message: "A set_variable node needs data.value (a template) or data.expression (JSON Logic)",
          },
        ]
      : []),
    ...(node.type === "loop" ? incompleteNodes(bodyOf(node)) : []),
  ]);
}

/** A loop's body nodes as nodes (whatever their shape; the graph rules judge it). */
export function bodyOf(node: FlowNode): FlowNode[] {
  const body = node.data.body;
  if (!Array.isArray(body)) return [];
  return body.flatMap((entry: unknown) => {
    if (!entry || typeof entry !== "object") return [];
    const { id, type, data } = entry as Record<string, unknown>;
    if (typeof id !== "string" || typeof type !== "string") return [];
    const fields = data && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
    return [{ id, type, data: fields, blocks: [] }];
  });
}

/**
 * The data fields of each node type that hold the id of something the organization owns. The
 * server checks each against the organization when a draft is written and when it is published.
 */
export type ReferenceKind = "knowledgebase" | "MCP connection";
export const NODE_REFERENCES: Record<NodeType, readonly { field: string; kind: ReferenceKind }[]> = {
  trigger_start: [],
  llm: [],
  knowledge_search: [{ field: "knowledgebaseId", kind: "knowledgebase" }],
  template: [],
  output: [],
  condition: [],
  set_variable: [],
  loop: [],
  http_request: [{ field: "credentials", kind: "MCP connection" }],
  code: [],
  approval: [],
};

/** Every id (or, for MCP connections, slug) a flow's nodes hold, a loop's body included, with the node and field holding it. */
export function flowReferences(
  nodes: FlowNode[],
): { nodeId: string; field: string; kind: ReferenceKind; id: string }[] {
  return nodes.flatMap((node) => [
    ...(NODE_REFERENCES[node.type as NodeType] ?? []).flatMap((reference) => {
      const id = node.data[reference.field];
      return typeof id === "string" ? [{ nodeId: node.id, field: reference.field, kind: reference.kind, id }] : [];
    }),
    ...(node.type === "loop" ? flowReferences(bodyOf(node)) : []),
  ]);
}

/** Whether text holds a control character (a line break, a tab…): a title is one line. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

const TEMPLATE_READ = /\{\{\s*(nodes|vars|loop)\.([A-Za-z0-9_-]+)(?:\.output)?\s*\}\}/g;

/** One step the run can take, by node index; `inOrder` when it is the array order (no `data.next`). */
export interface FlowEdge {
  from: number;
  to: number;
  inOrder: boolean;
  /** From a condition: the name of the branch that takes this step (`else` for `data.else`). */
  branch?: string;
}

/** The node ids a `next`-like value names (one id or several). */
function targetsOf(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** A condition's branches as `{name, next}`, whatever their shape (the graph rules judge it). */
function branchesOf(node: FlowNode): { name: string; next: unknown }[] {
  const branches = node.data.branches;
  const listed = Array.isArray(branches)
    ? branches.flatMap((branch: unknown) =>
        branch && typeof branch === "object"
          ? [
              {
                name: String((branch as Record<string, unknown>).name ?? ""),
                next: (branch as Record<string, unknown>).next,
              },
            ]
          : [],
      )
    : [];
  return node.data.else === undefined ? listed : [...listed, { name: "else", next: node.data.else }];
}

/**
 * Where the run can go from each node: the nodes `data.next` names, else the next one in the
 * array; a condition goes where its branches (and `else`) say, never on in array order; an output
 * node ends the run. The canvas draws these; validation walks them.
 */
export function flowEdges(nodes: FlowNode[]): FlowEdge[] {
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  return nodes.flatMap((node, i): FlowEdge[] => {
    if (node.type === "output") return [];
    if (node.type === "condition")
      return branchesOf(node).flatMap(({ name, next }) =>
        targetsOf(next).flatMap((id) =>
          typeof id === "string" && index.has(id)
            ? [{ from: i, to: index.get(id)!, inOrder: false, branch: name }]
            : [],
        ),
      );
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

/** JSON Logic operations that walk a list: nested more than this deep, one expression could run for minutes. */
const LIST_OPERATIONS = new Set(["map", "filter", "reduce", "all", "some", "none"]);
const MAX_LIST_NESTING = 2;
const MAX_EXPRESSION_DEPTH = 20;
/** Property names no variable path may walk through (they lead to the objects' prototypes). */
const UNSAFE_SEGMENT = /(^|\.)(__proto__|constructor|prototype)(\.|$)/;

/** Why a JSON Logic expression is refused (too large, too deep, too many nested list walks, an unsafe path), or null. */
export function expressionProblem(expression: unknown): string | null {
  let text: string | undefined;
  try {
    text = JSON.stringify(expression);
  } catch {
    return "is not JSON";
  }
  if (text === undefined) return "is not JSON";
  if (text.length > MAX_EXPRESSION_CHARS) return `is longer than ${MAX_EXPRESSION_CHARS} characters as JSON`;
  const walk = (value: unknown, depth: number, lists: number): string | null => {
    if (depth > MAX_EXPRESSION_DEPTH) return `is nested more than ${MAX_EXPRESSION_DEPTH} levels deep`;
    if (Array.isArray(value)) {
      for (const item of value) {
        const problem = walk(item, depth + 1, lists);
        if (problem) return problem;
      }
      return null;
    }
    if (!value || typeof value !== "object") return null;
    for (const [operation, argument] of Object.entries(value)) {
      const nested = lists + (LIST_OPERATIONS.has(operation) ? 1 : 0);
      if (nested > MAX_LIST_NESTING)
        return `nests list operations (map, filter, reduce, all, some, none) more than ${MAX_LIST_NESTING} deep`;
      if (operation === "var") {
        const path = Array.isArray(argument) ? argument[0] : argument;
        if (typeof path === "string" && UNSAFE_SEGMENT.test(path)) return `reads "${path}", which is not a variable`;
      }
      const problem = walk(argument, depth + 1, nested);
      if (problem) return problem;
    }
    return null;
  };
  return walk(expression, 0, 0);
}

/** Each zod issue of a node's data as a sentence naming the field. */
function dataProblems(node: FlowNode): string[] {
  const schema = NODE_DATA[node.type as keyof typeof NODE_DATA];
  if (!schema) return [];
  // Missing fields are incompleteNodes' to report (a draft may lack them); the rest must be right.
  const result = schema.partial().safeParse(node.data);
  if (result.success) return [];
  return result.error.issues.map((issue) => `data.${issue.path.join(".")}: ${issue.message}`);
}

/** Problems of one node's own data (not the graph): its type's fields, expressions, model, position, title. */
function nodeProblems(
  node: FlowNode,
  models: ReadonlySet<string>,
  missing: { nodeId: string; message: string }[],
): string[] {
  const problems: string[] = [];
  if (!(NODE_TYPES as readonly string[]).includes(node.type)) {
    problems.push(`Unknown node type "${node.type}"; known types: ${NODE_TYPES.join(", ")}`);
  } else {
    for (const gap of missing) if (gap.nodeId === node.id) problems.push(gap.message);
    problems.push(...dataProblems(node));
    if (
      node.type === "knowledge_search" &&
      typeof node.data.knowledgebaseId === "string" &&
      node.data.knowledgebaseId !== "" &&
      !/^[0-9a-f-]{36}$/i.test(node.data.knowledgebaseId)
    ) {
      problems.push("data.knowledgebaseId must be a knowledgebase id (uuid)");
    }
    if (
      node.type === "llm" &&
      node.data.model !== undefined &&
      (typeof node.data.model !== "string" || !models.has(node.data.model))
    ) {
      problems.push(`data.model "${String(node.data.model)}" is not a model from GET /models`);
    }
    const expressions: [string, unknown][] =
      node.type === "condition"
        ? branchesOf(node).flatMap((_, i) => {
            const branch = (node.data.branches as Record<string, unknown>[] | undefined)?.[i];
            return branch && "when" in branch ? [[`data.branches.${i}.when`, branch.when] as [string, unknown]] : [];
          })
        : node.type === "set_variable" && node.data.expression !== undefined
          ? [["data.expression", node.data.expression]]
          : node.type === "loop" && node.data.items !== undefined
            ? [["data.items", node.data.items]]
            : [];
    for (const [field, expression] of expressions) {
      const problem = expressionProblem(expression);
      if (problem) problems.push(`${field} ${problem}`);
    }
    if (node.type === "condition") {
      if (node.data.next !== undefined)
        problems.push("A condition goes where its branches say: use data.branches[].next and data.else, not data.next");
      const names = branchesOf(node).map((branch) => branch.name);
      const twice = names.find((name, i) => names.indexOf(name) !== i);
      if (twice !== undefined) problems.push(`Branch name "${twice}" is used more than once ("else" is data.else's)`);
    }
    if (node.type === "set_variable" && node.data.value !== undefined && node.data.expression !== undefined)
      problems.push("A set_variable node takes data.value (a template) or data.expression (JSON Logic), not both");
  }
  if (node.data.position !== undefined && !isPosition(node.data.position)) {
    problems.push(`data.position must be {x, y}: two numbers from -${MAX_NODE_POSITION} to ${MAX_NODE_POSITION}`);
  }
  const title = node.data.title;
  if (
    title !== undefined &&
    (typeof title !== "string" || title.length > MAX_NODE_TITLE_CHARS || hasControlCharacter(title))
  ) {
    problems.push(`data.title must be one line of text of at most ${MAX_NODE_TITLE_CHARS} characters`);
  }
  return problems;
}

/** Every text a node's data holds (headers and other nested fields too), with its field's path; a loop's body is its own. */
function textsOf(node: FlowNode): [string, string][] {
  const texts: [string, string][] = [];
  const walk = (value: unknown, path: string) => {
    if (typeof value === "string") texts.push([path, value]);
    else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}.${i}`));
    else if (value && typeof value === "object")
      for (const [key, item] of Object.entries(value)) walk(item, `${path}.${key}`);
  };
  for (const [key, value] of Object.entries(node.data))
    if (!(node.type === "loop" && key === "body")) walk(value, `data.${key}`);
  return texts;
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
  const bodies = nodes.map((node) => (node.type === "loop" ? bodyOf(node) : []));
  for (const node of [...nodes, ...bodies.flat()]) {
    if (seen.has(node.id))
      feedback.push({
        nodeId: node.id,
        message: `Node id "${node.id}" is used more than once; node ids must be unique (a loop's body nodes included)`,
      });
    seen.add(node.id);
  }
  for (const node of nodes) ids.add(node.id);
  const starts = nodes.filter((node) => node.type === "trigger_start");
  if (starts.length === 0) feedback.push({ message: "The flow needs exactly one trigger_start node; it has none" });
  for (const extra of starts.slice(1))
    feedback.push({ nodeId: extra.id, message: "The flow needs exactly one trigger_start node; this is another one" });
  nodes.forEach((node, i) => {
    for (const message of nodeProblems(node, models, missing)) feedback.push({ nodeId: node.id, message });
    for (const inner of bodies[i]!) {
      if (
        !(LOOP_BODY_TYPES as readonly string[]).includes(inner.type) &&
        (NODE_TYPES as readonly string[]).includes(inner.type)
      )
        continue; // The loop's own data check names the type a body may not hold.
      for (const message of nodeProblems(inner, models, missing)) feedback.push({ nodeId: inner.id, message });
      if (inner.data.next !== undefined)
        feedback.push({
          nodeId: inner.id,
          message: `A loop's body runs in order: data.next has no place in node "${inner.id}"`,
        });
    }
    const targets =
      node.type === "condition"
        ? branchesOf(node).flatMap((branch) =>
            targetsOf(branch.next).map(
              (target) => [`data.${branch.name === "else" ? "else" : "branches"}`, target] as const,
            ),
          )
        : targetsOf(node.data.next).map((target) => ["data.next", target] as const);
    for (const [field, target] of targets) {
      if (typeof target !== "string" || !ids.has(target))
        feedback.push({
          nodeId: node.id,
          message: `${field} names "${String(target)}", which is not a node of this flow`,
        });
    }
  });
  // A loop through data.next (or a branch) would run forever: a loop node is how a flow repeats.
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
  const runsBefore = (j: number, i: number) => reach[j]!.has(i) || reported.has(i);
  /** The reads of one node's texts: top-level node `at`, or a body node of loop `at` seeing `earlier` body nodes. */
  const checkReads = (node: FlowNode, at: number, inLoop: boolean, earlier: ReadonlySet<string>) => {
    for (const [field, value] of textsOf(node)) {
      for (const match of value.matchAll(TEMPLATE_READ)) {
        const [reference, space, name] = [match[0], match[1]!, match[2]!];
        if (space === "loop") {
          if (!inLoop || (name !== "item" && name !== "index"))
            feedback.push({
              nodeId: node.id,
              message: `${field} reads ${reference}, but only nodes in a loop's body read {{loop.item}} and {{loop.index}}`,
            });
        } else if (space === "vars") {
          const setters = nodes.flatMap((other, j) =>
            other.type === "set_variable" && other.data.name === name ? [j] : [],
          );
          if (setters.length === 0)
            feedback.push({
              nodeId: node.id,
              message: `${field} reads ${reference}, but no set_variable node sets "${name}"`,
            });
          else if (!setters.some((j) => runsBefore(j, at)))
            feedback.push({
              nodeId: node.id,
              message: `${field} reads ${reference}, but no node that sets "${name}" runs before this one`,
            });
        } else if (!earlier.has(name)) {
          const j = position.get(name);
          if (j === undefined)
            feedback.push({
              nodeId: node.id,
              message: `${field} reads {{nodes.${name}.output}}, but there is no node "${name}"${bodies.some((body) => body.some((inner) => inner.id === name)) ? " outside a loop's body (read the loop's output)" : ""}`,
            });
          else if (!runsBefore(j, at))
            feedback.push({
              nodeId: node.id,
              message: `${field} reads {{nodes.${name}.output}}, but node "${name}" does not run before this one`,
            });
        }
      }
    }
  };
  nodes.forEach((node, i) => {
    checkReads(node, i, false, new Set());
    const earlier = new Set<string>();
    for (const inner of bodies[i]!) {
      checkReads(inner, i, true, earlier);
      earlier.add(inner.id);
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
