"use client";
// The flow editor: inputs, and the nodes with live validation feedback (the same rules the
// server applies) in two views of one draft: a canvas (the default at a desk, ?view=list for
// the list) and a list (the only view below ~900 px, with the same edits). Every edit of the
// nodes can be undone (flow-history.ts).
import "./flow-editor.css";
import { useQuery } from "@tanstack/react-query";
import { Plus, Redo2, Undo2 } from "lucide-react";
import dynamic from "next/dynamic";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from "react";
import { Tabs } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { NODE_TYPES, type FlowInput, type FlowNode } from "@/schemas/builder";
import { flowFeedback, incompleteNodes } from "@/schemas/flow-graph";
import { EditorShell, type EditorBodyProps } from "./editor-shell";
import { QuestionsField, Section, TextArea, TextField } from "./fields";
import { emptyHistory, record, redo, undo, type History } from "./flow-history";
import { addNode, nodeTitle, placeBelow, placeNodes, typeLabel } from "./flow-nodes";
import { NodeFields } from "./node-fields";
import type { Doc, SaveProblem } from "./use-draft-editor";
import { DuplicateNameNote } from "./duplicate-name";

// @xyflow/react and its styles load only when a flow's canvas is shown.
const FlowCanvas = dynamic(() => import("./flow-canvas"), {
  ssr: false,
  loading: () => (
    <p className="muted" style={{ height: "36rem" }}>
      Loading the canvas…
    </p>
  ),
});

const WRITE_FIELDS = ["name", "slug", "description", "kind", "questions", "inputs", "nodes"];
const toWrite = (view: Doc): Doc => Object.fromEntries(WRITE_FIELDS.map((field) => [field, view[field]]));

/**
 * What the server would refuse in the structure (no start, duplicate ids, a missing or cyclic
 * next…) is not sent; models are left to the server, which knows the organization's list.
 */
function structuralProblem(doc: Doc, changes: Doc): SaveProblem | null {
  // As on the server, the graph is checked when the nodes are written.
  if (!("nodes" in changes)) return null;
  const nodes = doc.nodes as FlowNode[];
  const models = new Set(nodes.flatMap((node) => (typeof node.data.model === "string" ? [node.data.model] : [])));
  const feedback = flowFeedback(nodes, models, { allowIncomplete: true });
  return feedback.length === 0 ? null : { message: "Fix the flow's structure first.", feedback, heldBack: true };
}

export function FlowEditor({ id }: { id: string }) {
  return (
    <EditorShell kind="flows" id={id} toWrite={toWrite} holdBack={structuralProblem}>
      {(props) => <FlowForm {...props} />}
    </EditorShell>
  );
}

function FlowForm({ doc, update }: EditorBodyProps) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const view = useSearchParams().get("view") === "list" ? "list" : "canvas";
  const narrow = useNarrow();
  const [selected, setSelected] = useState<number | null>(null);
  const models = useQuery(trpc.models.list.queryOptions({}));
  const nodes = doc.nodes as FlowNode[];
  const inputs = doc.inputs as FlowInput[];
  const chosen = selected !== null && selected < nodes.length ? selected : null;
  // Structural problems are errors (the server refuses them); missing data is fine in a draft and
  // only listed as what publishing needs.
  const feedback = flowFeedback(nodes, new Set(models.data?.models.map((m) => m.id) ?? ["atrium-offline"]), {
    allowIncomplete: true,
  });
  const missing = incompleteNodes(nodes);
  const titleOf = (nodeId: string) => {
    const node = nodes.find((other) => other.id === nodeId);
    return node ? nodeTitle(node) : nodeId;
  };
  const [history, setHistory] = useState<History<FlowNode[]>>(emptyHistory);
  /** Every edit of the nodes is a step undo takes back; `group` joins the keystrokes of one field. */
  const setNodes = (next: FlowNode[], group?: string) => {
    setHistory((current) => record(current, nodes, group));
    update({ nodes: next });
  };
  const travel = (step: typeof undo) => {
    const back = step(history, nodes);
    if (!back) return;
    setHistory(back.history);
    update({ nodes: back.state });
  };
  // Ctrl/Cmd+Z, Shift+Ctrl/Cmd+Z and Ctrl+Y outside text fields (where they edit the text).
  // The listener is added once; it calls the latest travel through this ref, refreshed after each render.
  const shortcuts = useRef({ undo: () => travel(undo), redo: () => travel(redo) });
  useLayoutEffect(() => {
    shortcuts.current = { undo: () => travel(undo), redo: () => travel(redo) };
  });
  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable='true']")) return;
      const key = event.key.toLowerCase();
      if (key === "z" && !event.shiftKey) shortcuts.current.undo();
      else if ((key === "z" && event.shiftKey) || (key === "y" && !event.shiftKey)) shortcuts.current.redo();
      else return;
      event.preventDefault();
    }
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  /** On the canvas a new node goes below the others, and every node keeps the place it is drawn at. */
  const add = (type: string, onCanvas: boolean) => {
    setNodes(onCanvas ? addNode(placeNodes(nodes), type, placeBelow(nodes)) : addNode(nodes, type));
    setSelected(nodes.length);
  };
  const setInput = (index: number, changes: Partial<FlowInput>) =>
    update({ inputs: inputs.map((input, i) => (i === index ? { ...input, ...changes } : input)) });
  const list = (
    <div className="list-editor form">
      {nodes.map((_node, index) => (
        <NodeFields key={index} nodes={nodes} index={index} feedback={feedback} inputs={inputs} setNodes={setNodes} />
      ))}
      {nodes.length === 0 && <p className="muted">No nodes yet: add a start, then the steps it runs.</p>}
      <AddNodeButtons onAdd={(type) => add(type, false)} />
    </div>
  );

  return (
    <>
      <Section title="Flow" summary={[doc.name, doc.kind].filter(Boolean).join(" · ")}>
        <TextField label="Name" value={doc.name} onChange={(name) => update({ name })} testId="field-name" />
        <DuplicateNameNote kind="flows" name={doc.name} self={doc.id as string} />
        <TextField label="Slug" value={doc.slug} onChange={(slug) => update({ slug })} />
        <TextArea
          label="Description"
          value={doc.description}
          onChange={(description) => update({ description })}
          rows={2}
        />
        <TextField label="Kind" value={doc.kind} onChange={(kind) => update({ kind })} />
        <QuestionsField value={doc.questions} onChange={(questions) => update({ questions })} />
      </Section>
      <Section title="Inputs" summary={count(inputs.length, "input")}>
        <p className="muted">
          Templates read them as <code>{"{{inputs.key}}"}</code>. Published, they become the flow&apos;s input JSON
          Schema.
        </p>
        <div className="list-editor">
          {inputs.map((input, index) => (
            <div className="item row" key={index}>
              <input
                aria-label="Input key"
                value={input.key}
                onChange={(e) => setInput(index, { key: e.target.value })}
                placeholder="key"
                style={{ width: "9rem" }}
              />
              <input
                aria-label="Input label"
                value={input.label}
                onChange={(e) => setInput(index, { label: e.target.value })}
                placeholder="Label"
              />
              <select
                aria-label="Input type"
                value={input.type}
                onChange={(e) => setInput(index, { type: e.target.value })}
              >
                {["text", "number", "integer", "boolean", "select", "multiselect"].map((type) => (
                  <option key={type}>{type}</option>
                ))}
              </select>
              <label className="inline">
                <input
                  type="checkbox"
                  checked={input.required}
                  onChange={(e) => setInput(index, { required: e.target.checked })}
                />
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
              onClick={() =>
                update({
                  inputs: [
                    ...inputs,
                    {
                      key: `input${inputs.length + 1}`,
                      label: "",
                      description: "",
                      type: "text",
                      required: false,
                      options: [],
                    },
                  ],
                })
              }
            >
              Add input
            </button>
          </div>
        </div>
      </Section>
      <Section
        title="Nodes"
        summary={[
          count(nodes.length, "node"),
          missing.length > 0 ? `${count(new Set(missing.map((m) => m.nodeId)).size, "node")} to finish` : "",
        ]
          .filter(Boolean)
          .join(", ")}
      >
        <p className="muted" style={{ margin: 0 }}>
          Nodes run in list order unless connected otherwise. A template reads the flow&apos;s inputs and the outputs of
          earlier nodes: pick them with <em>Insert a variable</em>.
        </p>
        <div className="flow-history" role="group" aria-label="History">
          <button type="button" onClick={() => travel(undo)} disabled={history.past.length === 0} title="Ctrl+Z">
            <Undo2 size={16} aria-hidden /> Undo
          </button>
          <button
            type="button"
            onClick={() => travel(redo)}
            disabled={history.future.length === 0}
            title="Shift+Ctrl+Z or Ctrl+Y"
          >
            <Redo2 size={16} aria-hidden /> Redo
          </button>
        </div>
        <div role="status" data-testid="flow-feedback">
          {feedback.length === 0 && missing.length === 0 && (
            <p className="muted">The flow is complete and ready to publish.</p>
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
            <div data-testid="publish-checklist">
              <p className="muted" style={{ marginBottom: "0.25rem" }}>
                Saved as a draft. Before publishing:
              </p>
              <ul className="checklist">
                {missing.map((item) => (
                  <li key={`${item.nodeId}-${item.field}`}>
                    <button
                      type="button"
                      className="link"
                      onClick={() => setSelected(nodes.findIndex((node) => node.id === item.nodeId))}
                    >
                      {titleOf(item.nodeId)}
                    </button>{" "}
                    needs {item.need}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
        {narrow ? (
          <>
            <p className="muted" style={{ margin: 0 }}>
              The canvas needs a wider screen; this list edits the same nodes.
            </p>
            {list}
          </>
        ) : (
          <Tabs
            label="Nodes view"
            selected={view}
            onSelect={(id) => router.replace(id === "list" ? `${pathname}?view=list` : pathname, { scroll: false })}
            tabs={[
              {
                id: "canvas",
                label: "Canvas",
                panel:
                  view === "canvas" ? (
                    <div className="flow-canvas-view">
                      <AddNodeButtons onAdd={(type) => add(type, true)} />
                      <p className="muted" style={{ margin: 0 }}>
                        Drag from a node&apos;s lower dot to another node to connect them (dashed: list order). Select a
                        node to edit it; select a node or connection and press Delete to remove it; Ctrl+Z undoes.
                      </p>
                      <div className="flow-canvas-layout">
                        <FlowCanvas
                          nodes={nodes}
                          feedback={feedback}
                          missing={missing}
                          selected={chosen}
                          onSelect={setSelected}
                          setNodes={setNodes}
                        />
                        <aside aria-label="Selected node">
                          {chosen === null ? (
                            <p className="muted">Select a node on the canvas to edit it.</p>
                          ) : (
                            <NodeFields
                              nodes={nodes}
                              index={chosen}
                              feedback={feedback}
                              inputs={inputs}
                              setNodes={setNodes}
                              onMoved={setSelected}
                            />
                          )}
                        </aside>
                      </div>
                    </div>
                  ) : null,
              },
              { id: "list", label: "List", panel: view === "list" ? list : null },
            ]}
          />
        )}
      </Section>
    </>
  );
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

function AddNodeButtons({ onAdd }: { onAdd: (type: string) => void }) {
  return (
    <div className="row add-node-buttons">
      {NODE_TYPES.map((type) => (
        <button key={type} type="button" onClick={() => onAdd(type)}>
          <Plus size={16} aria-hidden /> Add {type === "llm" ? typeLabel(type) : typeLabel(type).toLowerCase()}
        </button>
      ))}
    </div>
  );
}

const NARROW = "(max-width: 900px)";

/** Below ~900 px the canvas is not offered; the node list edits the same draft. */
function useNarrow(): boolean {
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
