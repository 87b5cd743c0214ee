"use client";
// One flow node's fields (id, type, where the run goes next, its data), the same in the node list
// and beside the canvas.
import { X } from "lucide-react";
import { NODE_TYPES, type FlowInput, type FlowNode } from "@/schemas/builder";
import { upstreamNodeIds, type Feedback } from "@/schemas/flow-graph";
import { TextArea, TextField } from "./fields";
import { disconnect, moveNode, nextIds, removeNode } from "./flow-nodes";
import { KnowledgebaseName, KnowledgebasePicker } from "./knowledgebase-picker";

/** The data fields each node type is edited with (required ones are checked by flowFeedback). */
const DATA_FIELDS: Record<
  string,
  { key: string; label: string; multiline?: boolean; knowledgebase?: boolean; template?: boolean }[]
> = {
  trigger_start: [],
  llm: [
    { key: "prompt", label: "Prompt template", multiline: true, template: true },
    { key: "model", label: "Model (optional)" },
  ],
  knowledge_search: [
    { key: "knowledgebaseId", label: "Knowledgebase", knowledgebase: true },
    { key: "query", label: "Query template", template: true },
  ],
  template: [{ key: "template", label: "Template", multiline: true, template: true }],
  output: [{ key: "value", label: "Final value template", multiline: true, template: true }],
};

/**
 * "Insert a variable": the flow's inputs and the outputs of the nodes that run before this one,
 * so a reference is picked rather than typed (and cannot name a node that runs later).
 */
function VariablePicker({
  label,
  inputs,
  upstream,
  onInsert,
}: {
  label: string;
  inputs: FlowInput[];
  upstream: string[];
  onInsert: (reference: string) => void;
}) {
  if (inputs.length === 0 && upstream.length === 0) return null;
  return (
    <select
      // Named apart from its field's label, so the field is still the one control that label finds.
      aria-label="Insert a variable"
      title={`Insert a variable into ${label}`}
      value=""
      onChange={(e) => {
        if (e.target.value) onInsert(e.target.value);
      }}
    >
      <option value="">Insert a variable…</option>
      {inputs.length > 0 && (
        <optgroup label="Flow inputs">
          {inputs.map((input) => (
            <option key={input.key} value={`{{inputs.${input.key}}}`}>
              {input.label || input.key}
            </option>
          ))}
        </optgroup>
      )}
      {upstream.length > 0 && (
        <optgroup label="Outputs of earlier nodes">
          {upstream.map((id) => (
            <option key={id} value={`{{nodes.${id}.output}}`}>
              {id} → output
            </option>
          ))}
        </optgroup>
      )}
    </select>
  );
}

export function NodeFields({
  nodes,
  index,
  feedback,
  inputs = [],
  setNodes,
  onMoved,
}: {
  nodes: FlowNode[];
  index: number;
  feedback: Feedback[];
  /** The flow's inputs, offered by the variable picker. */
  inputs?: FlowInput[];
  setNodes: (nodes: FlowNode[]) => void;
  /** Called with the node's new index after it moves up or down. */
  onMoved?: (index: number) => void;
}) {
  const node = nodes[index]!;
  const setNode = (changes: Partial<FlowNode>) =>
    setNodes(nodes.map((other, i) => (i === index ? { ...other, ...changes } : other)));
  const setData = (key: string, value: unknown) => setNode({ data: { ...node.data, [key]: value } });
  const move = (by: number) => {
    setNodes(moveNode(nodes, index, by));
    onMoved?.(index + by);
  };
  const next = nextIds(nodes, index);
  return (
    <div
      className="item form"
      data-testid="flow-node"
      style={{ borderColor: feedback.some((f) => f.nodeId === node.id) ? "var(--danger)" : undefined }}
    >
      <div className="row">
        <input
          aria-label="Node id"
          value={node.id}
          onChange={(e) => setNode({ id: e.target.value })}
          style={{ width: "9rem" }}
        />
        <select aria-label="Node type" value={node.type} onChange={(e) => setNode({ type: e.target.value })}>
          {!(NODE_TYPES as readonly string[]).includes(node.type) && <option>{node.type}</option>}
          {NODE_TYPES.map((type) => (
            <option key={type}>{type}</option>
          ))}
        </select>
        <input
          aria-label="Next node"
          value={
            Array.isArray(node.data.next)
              ? (node.data.next as string[]).join(", ")
              : ((node.data.next as string | undefined) ?? "")
          }
          onChange={(e) => {
            const targets = e.target.value
              .split(",")
              .map((t) => t.trim())
              .filter(Boolean);
            const { next: _drop, ...rest } = node.data;
            setNode({
              data: targets.length === 0 ? rest : { ...rest, next: targets.length === 1 ? targets[0] : targets },
            });
          }}
          placeholder="next (optional)"
        />
        <button type="button" disabled={index === 0} onClick={() => move(-1)} aria-label="Move up">
          ↑
        </button>
        <button type="button" disabled={index === nodes.length - 1} onClick={() => move(1)} aria-label="Move down">
          ↓
        </button>
        <button type="button" onClick={() => setNodes(removeNode(nodes, index))}>
          Remove
        </button>
      </div>
      <p className="muted" data-testid="runs-next" style={{ margin: 0 }}>
        {node.type === "output" ? (
          "The run ends with this output."
        ) : next.length === 0 ? (
          "The run ends here."
        ) : (
          <>
            Then runs:{" "}
            {next.map((id) => (
              <span key={id} className="next-chip">
                <code>{id}</code>
                <button
                  type="button"
                  aria-label={`Disconnect ${id}`}
                  onClick={() =>
                    setNodes(
                      disconnect(
                        nodes,
                        index,
                        nodes.findIndex((other) => other.id === id),
                      ),
                    )
                  }
                >
                  <X size={14} aria-hidden />
                </button>
              </span>
            ))}
          </>
        )}
      </p>
      {(DATA_FIELDS[node.type] ?? []).map((field) =>
        field.knowledgebase ? (
          <div key={field.key} className="row">
            {typeof node.data[field.key] === "string" && node.data[field.key] !== "" && (
              <KnowledgebaseName id={String(node.data[field.key])} />
            )}
            <KnowledgebasePicker
              label={node.data[field.key] ? "Change knowledgebase" : field.label}
              onPick={(knowledgebaseId) => setData(field.key, knowledgebaseId)}
            />
          </div>
        ) : field.multiline ? (
          <div key={field.key}>
            <TextArea
              label={field.label}
              value={String(node.data[field.key] ?? "")}
              onChange={(value) => setData(field.key, value)}
              rows={2}
              code
            />
            <VariablePicker
              label={field.label}
              inputs={inputs}
              upstream={upstreamNodeIds(nodes, index)}
              onInsert={(reference) => setData(field.key, `${String(node.data[field.key] ?? "")}${reference}`)}
            />
          </div>
        ) : field.template ? (
          <div key={field.key}>
            <TextField
              label={field.label}
              value={String(node.data[field.key] ?? "")}
              onChange={(value) => setData(field.key, value)}
            />
            <VariablePicker
              label={field.label}
              inputs={inputs}
              upstream={upstreamNodeIds(nodes, index)}
              onInsert={(reference) => setData(field.key, `${String(node.data[field.key] ?? "")}${reference}`)}
            />
          </div>
        ) : (
          <TextField
            key={field.key}
            label={field.label}
            value={String(node.data[field.key] ?? "")}
            onChange={(value) => {
              const { [field.key]: _drop, ...rest } = node.data;
              setNode({ data: value === "" && field.key === "model" ? rest : { ...node.data, [field.key]: value } });
            }}
          />
        ),
      )}
    </div>
  );
}
