"use client";
// The flow's nodes on a canvas (@xyflow/react, loaded only by the flow editor through
// next/dynamic). It draws the draft and edits it: connections are the nodes' `data.next`, places
// are `data.position`, selecting a node shows its fields beside the canvas.
import "@xyflow/react/dist/style.css";
import "./flow-canvas.css";
import {
  Background,
  BaseEdge,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  applyEdgeChanges,
  applyNodeChanges,
  type Edge,
  type EdgeChange,
  type EdgeProps,
  type NodeChange,
  type ReactFlowInstance,
} from "@xyflow/react";
import {
  useEffect,
  useMemo,
  useRef,
  useState,
  type Dispatch,
  type DragEvent,
  type RefObject,
  type SetStateAction,
} from "react";
import type { FlowNode } from "@/schemas/builder/builder";
import { flowEdges, onCycle, type Feedback } from "@/schemas/builder/flow-graph";
import { NodeCard, type Card } from "./flow-card";
import {
  branchesOf,
  connect,
  disconnect,
  nodeTitle,
  placeNodes,
  placesOf,
  removeNode,
  typeLabel,
  type Place,
} from "./flow-nodes";
import { NODE_DRAG_TYPE } from "./node-catalog";
import type { StepChange } from "./node-changes";
import type { NodeResult } from "./run-results";

const NODE_TYPES = { card: NodeCard };

/** Half a card's width (11rem): how far a card reaches right of its handles. */
const HALF_CARD = 88;

/**
 * A step back up the canvas (to a node drawn above or level with its source). Drawn straight it
 * would run under the step the other way; it leaves the source's lower dot, goes round the right
 * of both cards and comes down into the target's upper dot.
 */
function BackEdge({ id, sourceX, sourceY, targetX, targetY, markerEnd, style, label }: EdgeProps) {
  const side = Math.max(sourceX, targetX) + HALF_CARD + 40;
  const bend = 48;
  const path = [
    `M ${sourceX},${sourceY}`,
    `C ${sourceX},${sourceY + bend} ${side},${sourceY + bend} ${side},${sourceY}`,
    `L ${side},${targetY}`,
    `C ${side},${targetY - bend} ${targetX},${targetY - bend} ${targetX},${targetY}`,
  ].join(" ");
  return (
    <BaseEdge
      id={id}
      path={path}
      markerEnd={markerEnd}
      style={style}
      label={label}
      labelX={side}
      labelY={(sourceY + targetY) / 2}
    />
  );
}

const EDGE_TYPES = { back: BackEdge };

export interface FlowCanvasProps {
  nodes: FlowNode[];
  feedback: Feedback[];
  /** What each incomplete node still lacks, shown quietly on its card ("needs a knowledgebase"). */
  missing: { nodeId: string; need: string }[];
  selected: number | null;
  onSelect: (index: number | null) => void;
  setNodes: (nodes: FlowNode[]) => void;
  /** A test run's result at each node, shown on its card. */
  results?: Map<string, NodeResult>;
  /** A node type dropped from the library at a place on the canvas (the full-screen editor). */
  onDropType?: (type: string, place: Place) => void;
  /** The overview map in a corner (the full-screen editor has room for it). */
  minimap?: boolean;
  /** Against a compared version: the steps added or changed since, by node id. */
  marks?: Map<string, StepChange>;
}

/** Which dot of a condition a step leaves from: its branch's (by name), or "else". */
function branchHandle(node: FlowNode, branch: string | undefined): string | undefined {
  if (node.type !== "condition" || branch === undefined) return undefined;
  const at = branchesOf(node).findIndex((way) => way.name === branch);
  return at >= 0 ? `b${at}` : "else";
}

export default function FlowCanvas(props: FlowCanvasProps) {
  const { nodes, feedback, missing, selected, setNodes, results, onDropType, minimap, marks } = props;
  const cards = useMemo(
    () => flowCards(nodes, { feedback, missing, selected, results, marks }),
    [nodes, feedback, missing, selected, results, marks],
  );
  const lines = useMemo(() => flowLines(nodes), [nodes]);
  const { shown, setShown, shownLines, setShownLines } = useShownGraph(cards, lines);
  const instanceRef = useFitOnAdd(nodes.length);

  const { edit, onNodesChange, onDelete, drop } = useCanvasEdits(props, setShown, instanceRef);

  return (
    <div
      className="flow-canvas"
      data-testid="flow-canvas"
      onDragOver={onDropType ? allowDrop : undefined}
      onDrop={drop}
    >
      {nodes.length === 0 && !onDropType && (
        <p className="flow-canvas-empty">No nodes yet: start with “Add start” above, then the steps it runs.</p>
      )}
      <ReactFlow<Card, Edge>
        nodes={shown}
        edges={shownLines}
        nodeTypes={NODE_TYPES}
        edgeTypes={EDGE_TYPES}
        onNodesChange={onNodesChange}
        onEdgesChange={(changes: EdgeChange[]) => setShownLines((current) => applyEdgeChanges(changes, current))}
        onDelete={onDelete}
        onConnect={({ source, target, sourceHandle }) =>
          edit((placed) => connect(placed, Number(source), Number(target), wayOf(sourceHandle)))
        }
        onNodeDragStop={(_event, _node, dragged) =>
          setNodes(placeNodes(nodes, new Map<number, Place>(dragged.map((card) => [Number(card.id), card.position]))))
        }
        onInit={(flow) => {
          instanceRef.current = flow;
        }}
        fitView
        fitViewOptions={{ padding: 0.2, maxZoom: 1 }}
        deleteKeyCode={["Backspace", "Delete"]}
        minZoom={0.2}
        colorMode="system"
      >
        <Background gap={16} />
        <Controls showInteractive={false} fitViewOptions={{ padding: 0.2, maxZoom: 1 }} />
        {minimap && <MiniMap pannable zoomable ariaLabel="Overview of the flow" />}
      </ReactFlow>
    </div>
  );
}

/** What the canvas does to the draft: select, delete, connect (by `edit`) and drop a library entry. */
function useCanvasEdits(
  { nodes, setNodes, selected, onSelect, onDropType }: FlowCanvasProps,
  setShown: Dispatch<SetStateAction<Card[]>>,
  instanceRef: RefObject<ReactFlowInstance<Card, Edge> | null>,
) {
  /** Every canvas edit keeps the places the nodes are drawn at. */
  const edit = (change: (placed: FlowNode[]) => FlowNode[]) => setNodes(change(placeNodes(nodes)));

  function onNodesChange(changes: NodeChange<Card>[]) {
    setShown((current) => applyNodeChanges(changes, current));
    const selections = changes.flatMap((change) => (change.type === "select" ? [change] : []));
    const chosen = selections.find((change) => change.selected);
    if (chosen) onSelect(Number(chosen.id));
    else if (selections.some((change) => Number(change.id) === selected)) onSelect(null);
  }

  /** Delete or Backspace on what is selected: connections first (by the old indices), then nodes. */
  function onDelete({ nodes: cardsGone, edges: linesGone }: { nodes: Card[]; edges: Edge[] }) {
    const gone = cardsGone.map((card) => Number(card.id)).sort((a, b) => b - a);
    const cut = linesGone.filter((line) => !gone.includes(Number(line.source)) && !gone.includes(Number(line.target)));
    edit((placed) =>
      gone.reduce(
        (left, index) => removeNode(left, index),
        cut.reduce((left, line) => disconnect(left, Number(line.source), Number(line.target)), placed),
      ),
    );
    if (gone.length > 0) onSelect(null);
  }

  /** A library entry dropped on the canvas: a node of its type where it was let go. */
  function drop(event: DragEvent) {
    const type = event.dataTransfer.getData(NODE_DRAG_TYPE);
    if (!type || !onDropType || !instanceRef.current) return;
    event.preventDefault();
    onDropType(type, instanceRef.current.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
  }
  return { edit, onNodesChange, onDelete, drop };
}

/** A card per node, at its place, marked bad, incomplete, run or changed. */
function flowCards(
  nodes: FlowNode[],
  marking: Pick<FlowCanvasProps, "feedback" | "missing" | "selected" | "results" | "marks">,
): Card[] {
  const { feedback, missing, selected, results, marks } = marking;
  const places = placesOf(nodes);
  return nodes.map((node, i) => ({
    id: String(i),
    type: "card",
    position: places[i]!,
    data: {
      node,
      bad: feedback.some((f) => f.nodeId === node.id),
      needs: missing.filter((m) => m.nodeId === node.id).map((m) => m.need),
      result: results?.get(node.id),
      change: marks?.get(node.id),
    },
    selected: i === selected,
    ariaLabel: `Node ${nodeTitle(node)} (${typeLabel(node.type)})`,
  }));
}

/** A line per connection, once each; one going back up is drawn around the side, one in a cycle in red. */
function flowLines(nodes: FlowNode[]): Edge[] {
  const seen = new Set<string>();
  const places = placesOf(nodes);
  const cycle = onCycle(nodes);
  return flowEdges(nodes).flatMap((edge) => {
    const { from, to, inOrder, branch } = edge;
    const id = `${from}-${to}${branch === undefined ? "" : `-${branch}`}`;
    if (seen.has(id)) return [];
    seen.add(id);
    const back = places[to]!.y <= places[from]!.y;
    const looped = cycle(edge);
    const [source, target] = [nodeTitle(nodes[from]!), nodeTitle(nodes[to]!)];
    return [
      {
        id,
        source: String(from),
        sourceHandle: branchHandle(nodes[from]!, branch),
        target: String(to),
        type: back ? "back" : undefined,
        className:
          [inOrder ? "in-order" : "", back ? "back" : "", looped ? "cycle" : ""].filter(Boolean).join(" ") || undefined,
        markerEnd: { type: MarkerType.ArrowClosed, ...(looped ? { color: "var(--danger)" } : {}) },
        label: back && looped ? `back to ${target}` : branch,
        ariaLabel: back
          ? `From ${source} back to ${target}${looped ? ", a cycle" : ""}`
          : `From ${source} to ${target}${looped ? ", part of a cycle" : ""}`,
      },
    ];
  });
}

/**
 * What the canvas draws: it holds what it measures and what is being dragged; the draft holds the rest.
 * When the draft changes, the cards and lines are drawn anew, keeping each card's measured size
 * and each line's selection (adjusted while rendering, not in an effect).
 */
function useShownGraph(cards: Card[], lines: Edge[]) {
  const [shown, setShown] = useState<Card[]>(cards);
  const [shownLines, setShownLines] = useState<Edge[]>(lines);
  const [drawn, setDrawn] = useState({ cards, lines });
  if (drawn.cards !== cards || drawn.lines !== lines) {
    setDrawn({ cards, lines });
    if (drawn.cards !== cards)
      setShown(cards.map((card) => ({ ...card, measured: shown.find((old) => old.id === card.id)?.measured })));
    if (drawn.lines !== lines)
      setShownLines(
        lines.map((line) => ({ ...line, selected: shownLines.find((old) => old.id === line.id)?.selected })),
      );
  }
  return { shown, setShown, shownLines, setShownLines };
}

/** The canvas instance; a node added (by the buttons above) may be outside the view, so every node is brought into it. */
function useFitOnAdd(count: number) {
  const instanceRef = useRef<ReactFlowInstance<Card, Edge> | null>(null);
  const before = useRef(count);
  useEffect(() => {
    if (count > before.current)
      setTimeout(() => void instanceRef.current?.fitView({ padding: 0.2, maxZoom: 1, duration: 200 }), 50);
    before.current = count;
  }, [count]);
  return instanceRef;
}

function allowDrop(event: DragEvent) {
  if (!event.dataTransfer.types.includes(NODE_DRAG_TYPE)) return;
  event.preventDefault();
  event.dataTransfer.dropEffect = "copy";
}

/** The condition way a connection leaves from: a branch's dot (`b2`), "otherwise", or a new branch. */
function wayOf(handle: string | null | undefined): number | "else" | undefined {
  if (handle === "else") return "else";
  return handle?.startsWith("b") ? Number(handle.slice(1)) : undefined;
}
