// Edits of a flow's nodes that the node list and the canvas share, so both views change the one
// draft the same way. Each returns a new array; connections are the nodes' own `data.next`.
import type { FlowNode } from "@/schemas/builder/builder";
import { flowEdges } from "@/schemas/builder/flow-graph";
import { MAX_NODE_POSITION } from "@/schemas/limits";

export interface Place {
  x: number;
  y: number;
}

const COLUMN = 240;
const ROW = 130;

/** The node types as a builder reads them: the badge on each node and the "Add" buttons. */
export const TYPE_LABELS: Record<string, string> = {
  trigger_start: "Start",
  llm: "LLM",
  knowledge_search: "Knowledge search",
  template: "Template",
  output: "Output",
  condition: "Condition",
  set_variable: "Set variable",
  loop: "Loop",
  http_request: "HTTP request",
  code: "Code",
  approval: "Approval",
};

/** What each type's output holds, as the variable menu names it ("Search docs → passages"). */
const OUTPUT_NAMES: Record<string, string> = {
  trigger_start: "inputs",
  llm: "reply",
  knowledge_search: "passages",
  template: "text",
  output: "value",
  condition: "branch taken",
  set_variable: "value",
  loop: "results",
  http_request: "response",
  code: "result",
  approval: "decision",
};

export const typeLabel = (type: string): string => TYPE_LABELS[type] ?? type;
export const outputName = (type: string): string => OUTPUT_NAMES[type] ?? "output";

/** An id made readable: "search_docs" → "Search docs", "draftReply2" → "Draft reply 2". */
export function readableId(id: string): string {
  const words = id
    .replace(/[_\-.]+/g, " ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([A-Za-z])([0-9])/g, "$1 $2")
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The name a node is shown by: the title a person gave it (`data.title`), else its id made readable. */
export function nodeTitle(node: FlowNode): string {
  const title = node.data.title;
  if (typeof title === "string" && title.trim() !== "") return title.trim();
  return readableId(node.id) || typeLabel(node.type);
}

/** A title for a new node of a type: the type's name, numbered when the flow already shows it. */
function newTitle(nodes: FlowNode[], type: string): string {
  const base = typeLabel(type);
  const shown = new Set(nodes.map(nodeTitle));
  for (let n = 1; ; n++) {
    const title = n === 1 ? base : `${base} ${n}`;
    if (!shown.has(title)) return title;
  }
}

/**
 * `reference` put into `text` where the cursor is (replacing the selection), or at the end when
 * the field was never focused; `caret` is where the cursor goes after it.
 */
export function insertAt(
  text: string,
  reference: string,
  start: number | null | undefined,
  end: number | null | undefined,
): { text: string; caret: number } {
  const from = start === null || start === undefined ? text.length : Math.min(Math.max(start, 0), text.length);
  const to = end === null || end === undefined ? from : Math.min(Math.max(end, from), text.length);
  return { text: text.slice(0, from) + reference + text.slice(to), caret: from + reference.length };
}

export function uniqueId(nodes: FlowNode[], type: string): string {
  const base = type
    .replace("trigger_start", "start")
    .replace("knowledge_search", "search")
    .replace("http_request", "http")
    .replace("set_variable", "set");
  for (let n = 1; ; n++) {
    const id = n === 1 ? base : `${base}${n}`;
    if (!nodes.some((node) => node.id === id)) return id;
  }
}

/** The ids the run goes to after node `index`: its `data.next`, else the next node in the list. */
export function nextIds(nodes: FlowNode[], index: number): string[] {
  return flowEdges(nodes)
    .filter((edge) => edge.from === index)
    .map((edge) => nodes[edge.to]!.id);
}

/** `data.next` set to exactly these ids; none (an empty array) ends the run at this node. */
function withNext(node: FlowNode, ids: string[]): FlowNode {
  const unique = [...new Set(ids)];
  return { ...node, data: { ...node.data, next: unique.length === 1 ? unique[0] : unique } };
}

export function addNode(nodes: FlowNode[], type: string, place?: Place): FlowNode[] {
  const title = newTitle(nodes, type);
  const data = { title, ...(place ? { position: place } : {}) };
  return [...nodes, { id: uniqueId(nodes, type), type, data, blocks: [] }];
}

export interface Branch {
  name: string;
  when: unknown;
  next: string | string[];
}

/** A condition's branches as written (`data.branches`), or none. */
export function branchesOf(node: FlowNode): Branch[] {
  return Array.isArray(node.data.branches) ? (node.data.branches as Branch[]) : [];
}

const targets = (value: unknown): string[] =>
  value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String);

/** A condition without the steps to `gone`: a branch left with no target goes, and so does such an `else`. */
function conditionWithout(node: FlowNode, gone: string): FlowNode {
  const branches = branchesOf(node).flatMap((branch) => {
    const left = targets(branch.next).filter((id) => id !== gone);
    if (left.length === 0) return [];
    return [{ ...branch, next: left.length === 1 ? left[0]! : left }];
  });
  // No branches is written as none (a draft may lack them; an empty list is refused).
  const { else: otherwise, branches: _old, ...data } = node.data;
  const elseLeft = targets(otherwise).filter((id) => id !== gone);
  return {
    ...node,
    data: {
      ...data,
      ...(branches.length > 0 ? { branches } : {}),
      ...(elseLeft.length > 0 ? { else: elseLeft.length === 1 ? elseLeft[0] : elseLeft } : {}),
    },
  };
}

/** A branch name not yet used by the condition ("Branch 2"). */
function newBranchName(node: FlowNode): string {
  const used = new Set(branchesOf(node).map((branch) => branch.name));
  for (let n = branchesOf(node).length + 1; ; n++) if (!used.has(`Branch ${n}`)) return `Branch ${n}`;
}

/** Removes a node and the connections to it (a condition's branches to it included). */
export function removeNode(nodes: FlowNode[], index: number): FlowNode[] {
  const gone = nodes[index]!.id;
  return nodes.flatMap((node, i) => {
    if (i === index) return [];
    if (node.type === "condition") return [conditionWithout(node, gone)];
    const next = node.data.next;
    const ids = next === undefined ? null : Array.isArray(next) ? next : [next];
    return ids?.includes(gone) ? [withNext(node, ids.filter((id) => id !== gone).map(String))] : [node];
  });
}

export function moveNode(nodes: FlowNode[], index: number, by: number): FlowNode[] {
  const next = [...nodes];
  const [node] = next.splice(index, 1);
  next.splice(index + by, 0, node!);
  return next;
}

/**
 * Adds a connection from node `from` to node `to`, keeping the ones `from` already has. From a
 * condition, `branch` (an index, or "else") says which of its ways now goes there; without it the
 * connection is a new branch that always holds until its rule is written.
 */
export function connect(nodes: FlowNode[], from: number, to: number, branch?: number | "else"): FlowNode[] {
  const source = nodes[from]!;
  const target = nodes[to]!.id;
  if (source.type === "condition") {
    const branches = branchesOf(source);
    const data =
      branch === "else"
        ? { ...source.data, else: target }
        : branch !== undefined && branches[branch]
          ? { ...source.data, branches: branches.map((b, i) => (i === branch ? { ...b, next: target } : b)) }
          : { ...source.data, branches: [...branches, { name: newBranchName(source), when: true, next: target }] };
    return nodes.map((node, i) => (i === from ? { ...node, data } : node));
  }
  const ids = nextIds(nodes, from);
  if (ids.includes(target)) return nodes;
  return nodes.map((node, i) => (i === from ? withNext(node, [...ids, target]) : node));
}

export function disconnect(nodes: FlowNode[], from: number, to: number): FlowNode[] {
  const target = nodes[to]!.id;
  return nodes.map((node, i) =>
    i !== from
      ? node
      : node.type === "condition"
        ? conditionWithout(node, target)
        : withNext(
            node,
            nextIds(nodes, from).filter((id) => id !== target),
          ),
  );
}

function clamp(value: number): number {
  return Math.max(-MAX_NODE_POSITION, Math.min(MAX_NODE_POSITION, Math.round(value)));
}

/** A node's stored place, when it has a valid one. */
export function storedPlace(node: FlowNode): Place | null {
  const place = node.data.position as Partial<Place> | undefined;
  return typeof place?.x === "number" && typeof place.y === "number" ? { x: place.x, y: place.y } : null;
}

/**
 * Where the canvas draws each node: its stored place, else a layered layout (rows by steps from
 * the trigger_start node; nodes the run never reaches in rows below).
 */
export function placesOf(nodes: FlowNode[]): Place[] {
  const edges = flowEdges(nodes);
  const depth = nodes.map(() => -1);
  const start = nodes.findIndex((node) => node.type === "trigger_start");
  const queue = start >= 0 ? [start] : [];
  if (start >= 0) depth[start] = 0;
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const edge of edges) {
      if (edge.from === at && depth[edge.to] === -1) {
        depth[edge.to] = depth[at]! + 1;
        queue.push(edge.to);
      }
    }
  }
  let below = Math.max(-1, ...depth);
  for (let i = 0; i < nodes.length; i++) if (depth[i] === -1) depth[i] = ++below;
  const rows = new Map<number, number[]>();
  depth.forEach((row, i) => rows.set(row, [...(rows.get(row) ?? []), i]));
  const auto: Place[] = [];
  for (const [row, members] of rows)
    members.forEach((i, slot) => (auto[i] = { x: (slot - (members.length - 1) / 2) * COLUMN, y: row * ROW }));
  return nodes.map((node, i) => storedPlace(node) ?? auto[i]!);
}

/** A place for a new node: below the lowest one. */
export function placeBelow(nodes: FlowNode[]): Place {
  const places = placesOf(nodes);
  if (places.length === 0) return { x: 0, y: 0 };
  const lowest = places.reduce((low, place) => (place.y > low.y ? place : low));
  return { x: clamp(lowest.x), y: clamp(lowest.y + ROW) };
}

/**
 * Stores where nodes were dropped, and the place every other node is drawn at, so once the canvas
 * is edited its layout never shifts when the graph changes.
 */
export function placeNodes(nodes: FlowNode[], dropped = new Map<number, Place>()): FlowNode[] {
  const places = placesOf(nodes);
  return nodes.map((node, i) => {
    const place = dropped.get(i) ?? places[i]!;
    const kept = storedPlace(node);
    if (kept && kept.x === clamp(place.x) && kept.y === clamp(place.y)) return node;
    return { ...node, data: { ...node.data, position: { x: clamp(place.x), y: clamp(place.y) } } };
  });
}
