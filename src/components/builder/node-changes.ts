// What changed in a flow's steps between a version and the draft, step by step, for the canvas
// to mark: a step added, a step whose type or settings changed (moving it on the canvas is not a
// change), and the steps removed (they are not on the canvas, so they are named).
import type { FlowNode } from "@/schemas/builder/builder";

export type StepChange = "added" | "changed";

export interface NodeChanges {
  /** By node id, the draft's steps that are new or changed. */
  marks: Map<string, StepChange>;
  /** The version's steps the draft no longer has. */
  removed: FlowNode[];
}

/** A step as it runs: its type and settings, without where the canvas draws it. */
function asRun(node: FlowNode): string {
  const { position: _place, ...data } = node.data;
  return JSON.stringify([node.type, sorted(data)]);
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, inner]) => [key, sorted(inner)]),
    );
  return value;
}

export function nodeChanges(before: FlowNode[], after: FlowNode[]): NodeChanges {
  const earlier = new Map(before.map((node) => [node.id, node]));
  const marks = new Map<string, StepChange>();
  for (const node of after) {
    const was = earlier.get(node.id);
    if (!was) marks.set(node.id, "added");
    else if (asRun(was) !== asRun(node)) marks.set(node.id, "changed");
  }
  const kept = new Set(after.map((node) => node.id));
  return { marks, removed: before.filter((node) => !kept.has(node.id)) };
}
