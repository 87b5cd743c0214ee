"use client";
// One node on the flow canvas: its title, type, the start of its main text, what it still needs,
// and after a test run its status, time, cost and the start of its output (the whole output is in
// the inspector: opened on the card, it covered the cards below). A condition has a dot
// per branch and one for "otherwise"; dragging from its right-hand dot adds a branch.
import { Handle, Position, useUpdateNodeInternals, type Node, type NodeProps } from "@xyflow/react";
import { useEffect } from "react";
import type { FlowNode } from "@/schemas/builder/builder";
import { branchesOf, nodeTitle, typeLabel } from "./flow-nodes";
import type { StepChange } from "./node-changes";
import type { NodeResult } from "./run-results";
import { StepResultLine } from "./step-run";

export type CardData = {
  node: FlowNode;
  bad: boolean;
  needs: string[];
  result?: NodeResult;
  /** Against a compared version: a step added or changed since. */
  change?: StepChange;
};
export type Card = Node<CardData, "card">;

export function NodeCard({ id, data }: NodeProps<Card>) {
  const { node, bad, needs, result, change } = data;
  const text = [node.data.prompt, node.data.query, node.data.template, node.data.value, node.data.url].find(
    (value) => typeof value === "string" && value !== "",
  ) as string | undefined;
  const status = result ? ` ran-${result.status}` : "";
  return (
    <div className={`flow-card${bad ? " bad" : ""}${status}${change ? ` compared-${change}` : ""}`}>
      {node.type !== "trigger_start" && <Handle type="target" position={Position.Top} />}
      <span className="flow-card-head">
        <strong className="flow-card-title">{nodeTitle(node)}</strong>
        <span className="flow-card-type">{typeLabel(node.type)}</span>
      </span>
      {change && (
        <span className="flow-card-change change-mark" data-testid="node-change">
          {change === "added" ? "Added" : "Changed"}
        </span>
      )}
      {text && <span className="flow-card-text">{text}</span>}
      {needs.length > 0 && <span className="flow-card-needs">needs {needs.join(" and ")}</span>}
      {result && <StepResultLine result={result} />}
      {node.type === "condition" ? (
        <BranchHandles id={id} node={node} />
      ) : (
        node.type !== "output" && <Handle type="source" position={Position.Bottom} />
      )}
    </div>
  );
}

/** A dot per branch and one for "otherwise" along the bottom, named beneath; a dot on the right adds a branch. */
function BranchHandles({ id, node }: { id: string; node: FlowNode }) {
  // The canvas measures a node's dots once; a branch added or removed moves them, so measure again.
  const updateNodeInternals = useUpdateNodeInternals();
  const count = branchesOf(node).length;
  useEffect(() => updateNodeInternals(id), [id, count, updateNodeInternals]);
  const ways = [
    ...branchesOf(node).map((branch, i) => ({ id: `b${i}`, name: branch.name })),
    { id: "else", name: "otherwise" },
  ];
  return (
    <>
      <span className="flow-card-branches" aria-hidden>
        {ways.map((way) => (
          <span key={way.id}>{way.name}</span>
        ))}
      </span>
      {ways.map((way, i) => (
        <Handle
          key={way.id}
          id={way.id}
          type="source"
          position={Position.Bottom}
          style={{ left: `${((i + 0.5) / ways.length) * 100}%` }}
          title={way.id === "else" ? "Where the run goes when no branch holds" : `Where “${way.name}” goes`}
        />
      ))}
      <Handle id="add" type="source" position={Position.Right} className="add-branch" title="Drag to add a branch" />
    </>
  );
}
