"use client";
// The studio on a phone: the flow's steps as a readable list (what each does, where it goes next,
// what it still needs, how it ran), each opened to edit its settings, moved up or down, or deleted.
import { ArrowDown, ArrowUp, ChevronRight, Trash2 } from "lucide-react";
import type { FlowNode } from "@/schemas/builder/builder";
import { branchesOf, moveNode, nextIds, nodeTitle, removeNode, typeLabel } from "../flow-nodes";
import type { StepChange } from "../node-changes";
import { StepResultLine } from "../step-run";
import type { NodeResult } from "../run-results";
import { Button } from "@/components/console";

/** Where the run goes after a step, in words: "then Answer", "gold → Reply, otherwise → Decline". */
function goesTo(nodes: FlowNode[], index: number): string {
  const node = nodes[index]!;
  const title = (id: unknown) => {
    const found = nodes.find((other) => other.id === id);
    return found ? nodeTitle(found) : String(id);
  };
  if (node.type === "output") return "ends the run";
  if (node.type === "condition") {
    const ways = branchesOf(node).map((branch) => `${branch.name} → ${title(branch.next)}`);
    if (node.data.else !== undefined) ways.push(`otherwise → ${title(node.data.else)}`);
    return ways.length > 0 ? ways.join(", ") : "no branches yet";
  }
  const next = nextIds(nodes, index);
  return next.length > 0 ? `then ${next.map(title).join(" and ")}` : "ends the run";
}

export function StepList({
  nodes,
  missing,
  results,
  selected = null,
  marks,
  onOpen,
  setNodes,
}: {
  nodes: FlowNode[];
  missing: { nodeId: string; need: string }[];
  results?: Map<string, NodeResult>;
  /** Against a compared version: the steps added or changed since. */
  marks?: Map<string, StepChange>;
  /** The step being edited beside the list (at a desk). */
  selected?: number | null;
  onOpen: (index: number) => void;
  setNodes: (nodes: FlowNode[]) => void;
}) {
  return (
    <ol className="step-list" aria-label="Steps">
      {nodes.map((node, index) => {
        const title = nodeTitle(node);
        const needs = missing.filter((m) => m.nodeId === node.id).map((m) => m.need);
        const result = results?.get(node.id);
        const change = marks?.get(node.id);
        return (
          <li
            key={`${node.id}-${index}`}
            className={`step${selected === index ? " selected" : ""}${change ? ` compared-${change}` : ""}`}
            data-testid="flow-step"
          >
            <Button
              className="step-open"
              onClick={() => onOpen(index)}
              aria-label={`Open ${title}`}
              aria-current={selected === index ? "step" : undefined}
            >
              <span className="step-number" aria-hidden>
                {index + 1}
              </span>
              <span className="step-text">
                <span className="step-head">
                  <strong>{title}</strong> <span className="step-type">{typeLabel(node.type)}</span>
                  {change && (
                    <span className="change-mark" data-testid="node-change">
                      {change === "added" ? "Added" : "Changed"}
                    </span>
                  )}
                </span>
                <span className="muted">{goesTo(nodes, index)}</span>
                {needs.length > 0 && <span className="step-needs">needs {needs.join(" and ")}</span>}
                {result && <StepResultLine result={result} />}
              </span>
              <ChevronRight size={18} aria-hidden />
            </Button>
            <span className="step-actions">
              <button
                type="button"
                disabled={index === 0}
                onClick={() => setNodes(moveNode(nodes, index, -1))}
                aria-label={`Move ${title} up`}
              >
                <ArrowUp size={16} aria-hidden />
              </button>
              <button
                type="button"
                disabled={index === nodes.length - 1}
                onClick={() => setNodes(moveNode(nodes, index, 1))}
                aria-label={`Move ${title} down`}
              >
                <ArrowDown size={16} aria-hidden />
              </button>
              <button type="button" onClick={() => setNodes(removeNode(nodes, index))} aria-label={`Delete ${title}`}>
                <Trash2 size={16} aria-hidden />
              </button>
            </span>
          </li>
        );
      })}
    </ol>
  );
}
