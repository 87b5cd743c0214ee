"use client";
// The flow editor: inputs, a node list editor with live validation feedback (the same rules
// the server applies), and a drawing of the node graph.
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc";
import { NODE_TYPES, type FlowInput, type FlowNode } from "@/schemas/builder";
import { flowFeedback, type Feedback } from "@/schemas/flow-graph";
import { EditorShell, type EditorBodyProps } from "./editor-shell";
import { QuestionsField, TextArea, TextField } from "./fields";
import { KnowledgebaseName, KnowledgebasePicker } from "./knowledgebase-picker";
import type { Doc } from "./use-draft-editor";

const WRITE_FIELDS = ["name", "slug", "description", "kind", "questions", "inputs", "nodes"];
const toWrite = (view: Doc): Doc => Object.fromEntries(WRITE_FIELDS.map((field) => [field, view[field]]));

/** The data fields each node type is edited with (required ones are checked by flowFeedback). */
const DATA_FIELDS: Record<string, { key: string; label: string; multiline?: boolean; knowledgebase?: boolean }[]> = {
  trigger_start: [],
  llm: [
    { key: "prompt", label: "Prompt template", multiline: true },
    { key: "model", label: "Model (optional)" },
  ],
  knowledge_search: [
    { key: "knowledgebaseId", label: "Knowledgebase", knowledgebase: true },
    { key: "query", label: "Query template" },
  ],
  template: [{ key: "template", label: "Template", multiline: true }],
  output: [{ key: "value", label: "Final value template", multiline: true }],
};

export function FlowEditor({ id }: { id: string }) {
  return (
    <EditorShell kind="flows" id={id} toWrite={toWrite}>
      {(props) => <FlowForm {...props} />}
    </EditorShell>
  );
}

function FlowForm({ doc, update }: EditorBodyProps) {
  const trpc = useTRPC();
  const models = useQuery(trpc.models.list.queryOptions({}));
  const nodes = doc.nodes as FlowNode[];
  const inputs = doc.inputs as FlowInput[];
  const feedback = flowFeedback(nodes, new Set(models.data?.models.map((m) => m.id) ?? ["atrium-offline"]));
  const setNodes = (next: FlowNode[]) => update({ nodes: next });
  const setNode = (index: number, changes: Partial<FlowNode>) => setNodes(nodes.map((node, i) => (i === index ? { ...node, ...changes } : node)));
  const move = (index: number, by: number) => {
    const next = [...nodes];
    const [node] = next.splice(index, 1);
    next.splice(index + by, 0, node!);
    setNodes(next);
  };
  const setInput = (index: number, changes: Partial<FlowInput>) => update({ inputs: inputs.map((input, i) => (i === index ? { ...input, ...changes } : input)) });

  return (
    <>
      <div className="panel form" aria-label="Flow">
        <h2 style={{ marginTop: 0 }}>Flow</h2>
        <TextField label="Name" value={doc.name} onChange={(name) => update({ name })} testId="field-name" />
        <TextField label="Slug" value={doc.slug} onChange={(slug) => update({ slug })} />
        <TextArea label="Description" value={doc.description} onChange={(description) => update({ description })} rows={2} />
        <TextField label="Kind" value={doc.kind} onChange={(kind) => update({ kind })} />
        <QuestionsField value={doc.questions} onChange={(questions) => update({ questions })} />
      </div>
      <div className="panel form" aria-label="Inputs">
        <h2 style={{ marginTop: 0 }}>Inputs</h2>
        <p className="muted">
          Templates read them as <code>{"{{inputs.key}}"}</code>. Published, they become the flow&apos;s input JSON Schema.
        </p>
        <div className="list-editor">
          {inputs.map((input, index) => (
            <div className="item row" key={index}>
              <input aria-label="Input key" value={input.key} onChange={(e) => setInput(index, { key: e.target.value })} placeholder="key" style={{ width: "9rem" }} />
              <input aria-label="Input label" value={input.label} onChange={(e) => setInput(index, { label: e.target.value })} placeholder="Label" />
              <select aria-label="Input type" value={input.type} onChange={(e) => setInput(index, { type: e.target.value })}>
                {["text", "number", "integer", "boolean", "select", "multiselect"].map((type) => (
                  <option key={type}>{type}</option>
                ))}
              </select>
              <label className="inline">
                <input type="checkbox" checked={input.required} onChange={(e) => setInput(index, { required: e.target.checked })} />
                required
              </label>
              {(input.type === "select" || input.type === "multiselect") && (
                <input
                  aria-label="Options"
                  value={input.options.join(", ")}
                  onChange={(e) =>
                    setInput(index, {
                      options: e.target.value
                        .split(",")
                        .map((o) => o.trim())
                        .filter(Boolean),
                    })
                  }
                  placeholder="option a, option b"
                />
              )}
              <button type="button" onClick={() => update({ inputs: inputs.filter((_, i) => i !== index) })}>
                Remove
              </button>
            </div>
          ))}
          <div>
            <button
              type="button"
              onClick={() => update({ inputs: [...inputs, { key: `input${inputs.length + 1}`, label: "", description: "", type: "text", required: false, options: [] }] })}
            >
              Add input
            </button>
          </div>
        </div>
      </div>
      <div className="panel" aria-label="Nodes">
        <h2 style={{ marginTop: 0 }}>Nodes</h2>
        <p className="muted">
          Nodes run in this order unless <em>next</em> names the node to run next. Templates read <code>{"{{inputs.key}}"}</code> and <code>{"{{nodes.<id>.output}}"}</code>.
        </p>
        <div role="status" data-testid="flow-feedback">
          {feedback.length === 0 ? (
            <p className="muted">The graph is valid.</p>
          ) : (
            <ul className="error">
              {feedback.map((item, index) => (
                <li key={index}>
                  {item.nodeId && <code>{item.nodeId}</code>} {item.message}
                </li>
              ))}
            </ul>
          )}
        </div>
        <FlowGraph nodes={nodes} feedback={feedback} />
        <div className="list-editor form">
          {nodes.map((node, index) => (
            <div className="item form" key={index} style={{ borderColor: feedback.some((f) => f.nodeId === node.id) ? "var(--danger)" : undefined }}>
              <div className="row">
                <input aria-label="Node id" value={node.id} onChange={(e) => setNode(index, { id: e.target.value })} style={{ width: "9rem" }} />
                <select aria-label="Node type" value={node.type} onChange={(e) => setNode(index, { type: e.target.value })}>
                  {!(NODE_TYPES as readonly string[]).includes(node.type) && <option>{node.type}</option>}
                  {NODE_TYPES.map((type) => (
                    <option key={type}>{type}</option>
                  ))}
                </select>
                <input
                  aria-label="Next node"
                  value={Array.isArray(node.data.next) ? (node.data.next as string[]).join(", ") : ((node.data.next as string | undefined) ?? "")}
                  onChange={(e) => {
                    const targets = e.target.value
                      .split(",")
                      .map((t) => t.trim())
                      .filter(Boolean);
                    const { next: _drop, ...rest } = node.data;
                    setNode(index, { data: targets.length === 0 ? rest : { ...rest, next: targets.length === 1 ? targets[0] : targets } });
                  }}
                  placeholder="next (optional)"
                />
                <button type="button" disabled={index === 0} onClick={() => move(index, -1)} aria-label="Move up">
                  ↑
                </button>
                <button type="button" disabled={index === nodes.length - 1} onClick={() => move(index, 1)} aria-label="Move down">
                  ↓
                </button>
                <button type="button" onClick={() => setNodes(nodes.filter((_, i) => i !== index))}>
                  Remove
                </button>
              </div>
              {(DATA_FIELDS[node.type] ?? []).map((field) =>
                field.knowledgebase ? (
                  <div key={field.key} className="row">
                    {typeof node.data[field.key] === "string" && node.data[field.key] !== "" && <KnowledgebaseName id={String(node.data[field.key])} />}
                    <KnowledgebasePicker
                      label={node.data[field.key] ? "Change knowledgebase" : field.label}
                      onPick={(knowledgebaseId) => setNode(index, { data: { ...node.data, [field.key]: knowledgebaseId } })}
                    />
                  </div>
                ) : field.multiline ? (
                  <TextArea
                    key={field.key}
                    label={field.label}
                    value={String(node.data[field.key] ?? "")}
                    onChange={(value) => setNode(index, { data: { ...node.data, [field.key]: value } })}
                    rows={2}
                    code
                  />
                ) : (
                  <TextField
                    key={field.key}
                    label={field.label}
                    value={String(node.data[field.key] ?? "")}
                    onChange={(value) => {
                      const { [field.key]: _drop, ...rest } = node.data;
                      setNode(index, { data: value === "" && field.key === "model" ? rest : { ...node.data, [field.key]: value } });
                    }}
                  />
                ),
              )}
            </div>
          ))}
          <div className="row">
            {NODE_TYPES.map((type) => (
              <button key={type} type="button" onClick={() => setNodes([...nodes, { id: uniqueId(nodes, type), type, data: {}, blocks: [] }])}>
                Add {type}
              </button>
            ))}
          </div>
        </div>
      </div>
    </>
  );
}

function uniqueId(nodes: FlowNode[], type: string): string {
  const base = type.replace("trigger_start", "start").replace("knowledge_search", "search");
  for (let n = 1; ; n++) {
    const id = n === 1 ? base : `${base}${n}`;
    if (!nodes.some((node) => node.id === id)) return id;
  }
}

/** Edges as the runtime follows them: `data.next`, else the next node in the array. */
function edgesOf(nodes: FlowNode[]): [number, number][] {
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  const edges: [number, number][] = [];
  nodes.forEach((node, i) => {
    const next = node.data.next;
    if (next !== undefined) {
      for (const target of Array.isArray(next) ? next : [next]) {
        const j = index.get(String(target));
        if (j !== undefined) edges.push([i, j]);
      }
    } else if (node.type !== "output" && i + 1 < nodes.length) {
      edges.push([i, i + 1]);
    }
  });
  return edges;
}

function FlowGraph({ nodes, feedback }: { nodes: FlowNode[]; feedback: Feedback[] }) {
  if (nodes.length === 0) return null;
  const width = 420;
  const boxWidth = 200;
  const boxHeight = 40;
  const gap = 26;
  const x = (width - boxWidth) / 2;
  const y = (i: number) => 10 + i * (boxHeight + gap);
  const height = y(nodes.length) + 4;
  return (
    <svg className="graph" width={width} height={height} role="img" aria-label="Node graph" data-testid="flow-graph">
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" fill="#868e96" />
        </marker>
      </defs>
      {edgesOf(nodes).map(([from, to], i) => {
        const adjacent = to === from + 1;
        const path = adjacent
          ? `M ${width / 2} ${y(from) + boxHeight} L ${width / 2} ${y(to)}`
          : `M ${x + boxWidth} ${y(from) + boxHeight / 2} C ${x + boxWidth + 60 + Math.abs(to - from) * 8} ${y(from) + boxHeight / 2}, ${x + boxWidth + 60 + Math.abs(to - from) * 8} ${y(to) + boxHeight / 2}, ${x + boxWidth} ${y(to) + boxHeight / 2}`;
        return <path key={i} d={path} fill="none" stroke="#868e96" strokeWidth={1.5} markerEnd="url(#arrow)" />;
      })}
      {nodes.map((node, i) => {
        const bad = feedback.some((f) => f.nodeId === node.id);
        return (
          <g key={i}>
            <rect x={x} y={y(i)} width={boxWidth} height={boxHeight} rx={8} fill={bad ? "#fff5f5" : "#fff"} stroke={bad ? "#e03131" : "#adb5bd"} />
            <text x={width / 2} y={y(i) + 17} textAnchor="middle" fontSize={13} fontWeight={600}>
              {node.id}
            </text>
            <text x={width / 2} y={y(i) + 32} textAnchor="middle" fontSize={11} fill="#5f6b7a">
              {node.type}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
