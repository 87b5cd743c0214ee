"use client";
// One flow node's fields (title, type, id, where the run goes next, its data) and its last test
// run, the same in a phone's step sheet and beside the canvas.
import { ArrowDown, ArrowUp, Trash2, X } from "lucide-react";
import { useState } from "react";
import { FormField, Select } from "@/components/console";
import { NODE_TYPES, type FlowInput, type FlowNode } from "@/schemas/builder/builder";
import type { Feedback } from "@/schemas/builder/flow-graph";
import { ConditionFields } from "./condition-fields";
import { TextField } from "./fields";
import { connect, disconnect, moveNode, nextIds, nodeTitle, readableId, removeNode, typeLabel } from "./flow-nodes";
import { NodeDataFields } from "./node-data-fields";
import type { NodeResult } from "./run-results";
import { StepRun } from "./step-run";
import { variablesFor } from "./variable-menu";

export function NodeFields({
  nodes,
  index,
  feedback,
  inputs = [],
  setNodes,
  onMoved,
  result,
}: {
  nodes: FlowNode[];
  index: number;
  feedback: Feedback[];
  /** The flow's inputs, offered by the variable menu. */
  inputs?: FlowInput[];
  /** `group` names a field being typed in, so the editor's undo takes the typing back as one step. */
  setNodes: (nodes: FlowNode[], group?: string) => void;
  /** Called with the node's new index after it moves up or down, or null when it is deleted. */
  onMoved?: (index: number | null) => void;
  /** The step's last test run, shown under its name. */
  result?: NodeResult;
}) {
  const node = nodes[index]!;
  const setNode = (changes: Partial<FlowNode>, group?: string) =>
    setNodes(
      nodes.map((other, i) => (i === index ? { ...other, ...changes } : other)),
      group,
    );
  /** Sets one data field; undefined removes it. */
  const setData = (key: string, value: unknown, group?: string) => {
    const { [key]: _old, ...rest } = node.data;
    setNode({ data: value === undefined ? rest : { ...rest, [key]: value } }, group);
  };
  const move = (by: number) => {
    setNodes(moveNode(nodes, index, by));
    onMoved?.(index + by);
  };
  const title = nodeTitle(node);
  const variables = variablesFor(nodes, index, inputs);
  const group = (key: string) => `${index}:${key}`;
  return (
    <div
      className={feedback.some((f) => f.nodeId === node.id) ? "item form node-fields bad" : "item form node-fields"}
      data-testid="flow-node"
    >
      <NodeHead
        title={title}
        type={node.type}
        first={index === 0}
        last={index === nodes.length - 1}
        onMove={move}
        onDelete={() => {
          setNodes(removeNode(nodes, index));
          onMoved?.(null);
        }}
      />
      {result && <StepRun result={result} />}
      <NodeBasics node={node} setNode={setNode} group={group} />
      <RunsNext nodes={nodes} index={index} setNodes={setNodes} />
      {node.type === "condition" ? (
        <ConditionFields nodes={nodes} index={index} variables={variables} setData={setData} />
      ) : (
        <NodeDataFields node={node} variables={variables} setData={setData} group={group} />
      )}
    </div>
  );
}

/** The node's title and type, with moving it up or down and deleting it. */
function NodeHead({
  title,
  type,
  first,
  last,
  onMove,
  onDelete,
}: {
  title: string;
  type: string;
  first: boolean;
  last: boolean;
  onMove: (by: number) => void;
  onDelete: () => void;
}) {
  return (
    <div className="node-head">
      <strong className="node-title">{title}</strong>
      <span className="node-badge">{typeLabel(type)}</span>
      <span className="node-actions">
        <button type="button" disabled={first} onClick={() => onMove(-1)} aria-label="Move up">
          <ArrowUp size={16} aria-hidden />
        </button>
        <button type="button" disabled={last} onClick={() => onMove(1)} aria-label="Move down">
          <ArrowDown size={16} aria-hidden />
        </button>
        <button type="button" onClick={onDelete} aria-label={`Delete ${title}`}>
          <Trash2 size={16} aria-hidden /> Delete
        </button>
      </span>
    </div>
  );
}

/** Where the run goes after this node: each next node (disconnectable), and a way to connect another. */
function RunsNext({
  nodes,
  index,
  setNodes,
}: {
  nodes: FlowNode[];
  index: number;
  setNodes: (nodes: FlowNode[]) => void;
}) {
  const node = nodes[index]!;
  const [target, setTarget] = useState("");
  const next = nextIds(nodes, index);
  const others = nodes.flatMap((other, i) => (i !== index && !next.includes(other.id) ? [{ other, i }] : []));
  return (
    <div className="runs-next">
      <p className="muted" data-testid="runs-next" style={{ margin: 0 }}>
        {node.type === "output" ? (
          "The run ends with this output."
        ) : next.length === 0 ? (
          "The run ends here."
        ) : (
          <>
            Then runs:{" "}
            {next.map((id) => {
              const to = nodes.findIndex((other) => other.id === id);
              const name = to >= 0 ? nodeTitle(nodes[to]!) : id;
              return (
                <span key={id} className="next-chip">
                  {name}
                  <button
                    type="button"
                    aria-label={`Disconnect ${name}`}
                    onClick={() => setNodes(disconnect(nodes, index, to))}
                  >
                    <X size={14} aria-hidden />
                  </button>
                </span>
              );
            })}
          </>
        )}
      </p>
      {node.type !== "output" && others.length > 0 && (
        <div className="row connect-row">
          <FormField label="Connect to">
            <Select
              value={target}
              onChange={(e) => setTarget(e.target.value)}
              options={others.map(({ other, i }) => ({ value: String(i), label: nodeTitle(other) }))}
              placeholder="Choose a node…"
            />
          </FormField>
          <button
            type="button"
            disabled={target === ""}
            onClick={() => {
              setNodes(connect(nodes, index, Number(target)));
              setTarget("");
            }}
          >
            Connect
          </button>
        </div>
      )}
    </div>
  );
}

/** The node's title (its id or type until one is given), its type, and its id. */
function NodeBasics({
  node,
  setNode,
  group,
}: {
  node: FlowNode;
  setNode: (changes: Partial<FlowNode>, group?: string) => void;
  group: (key: string) => string;
}) {
  return (
    <div className="node-grid">
      <TextField
        label="Title"
        value={typeof node.data.title === "string" ? node.data.title : ""}
        placeholder={readableId(node.id) || typeLabel(node.type)}
        onChange={(value) => {
          const { title: _drop, ...rest } = node.data;
          setNode({ data: value === "" ? rest : { ...rest, title: value } }, group("title"));
        }}
      />
      <FormField label="Type">
        <Select
          value={node.type}
          onChange={(e) => setNode({ type: e.target.value })}
          options={[
            ...(!(NODE_TYPES as readonly string[]).includes(node.type) ? [{ value: node.type, label: node.type }] : []),
            ...NODE_TYPES.map((type) => ({ value: type, label: typeLabel(type) })),
          ]}
        />
      </FormField>
      <FormField label="Node id">
        <input
          className="code"
          value={node.id}
          onChange={(e) => setNode({ id: e.target.value }, group("id"))}
          title="What templates and connections name this node by"
        />
      </FormField>
    </div>
  );
}
