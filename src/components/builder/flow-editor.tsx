"use client";
// What the flow studio (studio/flow-studio.tsx, the one flow editor) saves and holds back: the
// draft's writable fields, the structural problems the server would refuse (not sent; kept in
// this browser), and whether the screen is too narrow for the canvas.
import { useSyncExternalStore } from "react";
import type { FlowNode } from "@/schemas/builder/builder";
import { flowFeedback } from "@/schemas/builder/flow-graph";
import type { Doc, SaveProblem } from "./use-draft-editor";

const WRITE_FIELDS = ["name", "slug", "description", "kind", "questions", "inputs", "nodes"];
export const toWrite = (view: Doc): Doc => Object.fromEntries(WRITE_FIELDS.map((field) => [field, view[field]]));

/**
 * What the server would refuse in the structure (no start, duplicate ids, a missing or cyclic
 * next…) is not sent; models are left to the server, which knows the organization's list.
 */
export function structuralProblem(doc: Doc, changes: Doc): SaveProblem | null {
  // As on the server, the graph is checked when the nodes are written.
  if (!("nodes" in changes)) return null;
  const nodes = doc.nodes as FlowNode[];
  const models = new Set(nodes.flatMap((node) => (typeof node.data.model === "string" ? [node.data.model] : [])));
  const feedback = flowFeedback(nodes, models, { allowIncomplete: true });
  return feedback.length === 0 ? null : { message: "Fix the flow's structure first.", feedback, heldBack: true };
}

const NARROW = "(max-width: 900px)";

/** Below ~900 px the canvas is not offered; the node list edits the same draft. */
export function useNarrow(): boolean {
  return useSyncExternalStore(
    (changed) => {
      const query = window.matchMedia(NARROW);
      query.addEventListener("change", changed);
      return () => query.removeEventListener("change", changed);
    },
    () => window.matchMedia(NARROW).matches,
    () => false,
  );
}
