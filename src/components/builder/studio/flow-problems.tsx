"use client";
// What the studio says about the flow as a whole: how to begin when it is empty, what breaks it
// (the server would refuse it; kept in this browser), and what publishing still needs.
import { Play } from "lucide-react";
import type { FlowNode } from "@/schemas/builder/builder";
import type { Feedback } from "@/schemas/builder/flow-graph";
import { nodeTitle } from "../flow-nodes";
import { Button } from "@/components/console";

export function EmptyFlow({ onStart }: { onStart: () => void }) {
  return (
    <div className="studio-empty" data-testid="empty-flow">
      <h2>Start your flow</h2>
      <p className="muted">
        Every flow begins with a Start step, which receives the flow&apos;s inputs. Add it, then drag steps from the
        library and end with an Output.
      </p>
      <Button variant="primary" onClick={onStart}>
        <Play size={16} aria-hidden /> Add a Start step
      </Button>
    </div>
  );
}

export function FlowProblems({
  nodes,
  feedback,
  missing,
  onSelect,
}: {
  nodes: FlowNode[];
  feedback: Feedback[];
  missing: { nodeId: string; field: string; need: string }[];
  onSelect: (index: number) => void;
}) {
  if (nodes.length === 0) return null;
  const titleOf = (nodeId: string) => {
    const node = nodes.find((other) => other.id === nodeId);
    return node ? nodeTitle(node) : nodeId;
  };
  const pick = (nodeId: string) => onSelect(nodes.findIndex((node) => node.id === nodeId));
  return (
    <div className="studio-problems" role="status" data-testid="flow-feedback">
      {feedback.length === 0 && missing.length === 0 && (
        <span className="muted">The flow is complete and ready to publish.</span>
      )}
      {feedback.length > 0 && (
        <ul className="error">
          {feedback.map((item, index) => (
            <li key={index}>
              {item.nodeId && <strong>{titleOf(item.nodeId)}:</strong>} {item.message}
            </li>
          ))}
        </ul>
      )}
      {missing.length > 0 && (
        <span data-testid="publish-checklist">
          <span className="muted">Before publishing: </span>
          {missing.map((item, index) => (
            <span key={`${item.nodeId}-${item.field}`}>
              {index > 0 && ", "}
              <Button variant="link" onClick={() => pick(item.nodeId)}>
                {titleOf(item.nodeId)}
              </Button>{" "}
              needs {item.need}
            </span>
          ))}
        </span>
      )}
    </div>
  );
}
