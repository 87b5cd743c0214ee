// The graph rules' feedback (flow-graph.ts) as the editors show it: in a builder's words where a
// rule names an internal type, and nothing at all about a start for an empty flow (the editors
// greet it with how to begin instead).
import type { FlowNode } from "@/schemas/builder/builder";
import type { Feedback } from "@/schemas/builder/flow-graph";

const PLAIN: [RegExp, string][] = [
  [/exactly one trigger_start node; it has none/, "The flow has no Start step: add one, every flow begins with it."],
  [/exactly one trigger_start node; this is another one/, "A flow has one Start step: this is a second one."],
];

export function shownFeedback(feedback: Feedback[], nodes: FlowNode[]): Feedback[] {
  return feedback.flatMap((item) => {
    const plain = PLAIN.find(([rule]) => rule.test(item.message));
    if (!plain) return [item];
    if (nodes.length === 0) return [];
    return [{ ...item, message: plain[1] }];
  });
}
