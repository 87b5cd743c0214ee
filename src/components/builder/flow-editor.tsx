"use client";
// The flow editor: inputs, and the nodes with live validation feedback (the same rules the
// server applies) in two views of one draft: a canvas (the default at a desk, ?view=list for
// the list) and a list (the only view below ~900 px, with the same edits). Every edit of the
// nodes can be undone (flow-history.ts).
import "./flow-editor.css";
import { useQuery } from "@tanstack/react-query";
import { Plus, Redo2, Undo2 } from "lucide-react";
import dynamic from "next/dynamic";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState, useSyncExternalStore } from "react";
import { Tabs } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { NODE_TYPES, type FlowInput, type FlowNode } from "@/schemas/builder";
import { flowFeedback, incompleteNodes } from "@/schemas/flow-graph";
import { EditorShell, type EditorBodyProps } from "./editor-shell";
import { Section } from "./fields";
import { shownFeedback } from "./flow-checks";
import { FlowDetails, count } from "./flow-details";
import { addNode, nodeTitle, placeBelow, placeNodes, typeLabel } from "./flow-nodes";
import { NodeFields } from "./node-fields";
import { useNodeHistory } from "./use-node-history";
import type { Doc, SaveProblem } from "./use-draft-editor";

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
  const feedback = shownFeedback(
    flowFeedback(nodes, new Set(models.data?.models.map((m) => m.id) ?? ["atrium-offline"]), {
      allowIncomplete: true,
    }),
    nodes,
  );
  const missing = incompleteNodes(nodes);
  const titleOf = (nodeId: string) => {
    const node = nodes.find((other) => other.id === nodeId);
    return node ? nodeTitle(node) : nodeId;
  };
  const { setNodes, ...history } = useNodeHistory(nodes, (next) => update({ nodes: next }));
  /** On the canvas a new node goes below the others, and every node keeps the place it is drawn at. */
  const add = (type: string, onCanvas: boolean) => {
    setNodes(onCanvas ? addNode(placeNodes(nodes), type, placeBelow(nodes)) : addNode(nodes, type));
    setSelected(nodes.length);
  };
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
      <FlowDetails doc={doc} update={update} />
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
        <p style={{ margin: 0 }}>
          <Link href={`${pathname}/studio`}>Open the full-screen editor</Link>: the canvas with the node library, each
          step&apos;s settings and test runs shown on the canvas.
        </p>
        <div className="flow-history" role="group" aria-label="History">
          <button type="button" onClick={history.undo} disabled={!history.canUndo} title="Ctrl+Z">
            <Undo2 size={16} aria-hidden /> Undo
          </button>
          <button type="button" onClick={history.redo} disabled={!history.canRedo} title="Shift+Ctrl+Z or Ctrl+Y">
            <Redo2 size={16} aria-hidden /> Redo
          </button>
        </div>
        <div role="status" data-testid="flow-feedback">
          {nodes.length === 0 ? (
            <p className="muted">
              An empty flow: add a start (it receives the flow&apos;s inputs), then the steps it runs and an output.
            </p>
          ) : (
            feedback.length === 0 &&
            missing.length === 0 && <p className="muted">The flow is complete and ready to publish.</p>
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
