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
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  applyEdgeChanges,
  applyNodeChanges,
  type Edge,
  type EdgeChange,
  type EdgeProps,
  type Node,
  type NodeChange,
  type NodeProps,
  type ReactFlowInstance,
} from "@xyflow/react";
import { useEffect, useMemo, useRef, useState } from "react";
import type { FlowNode } from "@/schemas/builder";
import { flowEdges, onCycle, type Feedback } from "@/schemas/flow-graph";
import { connect, disconnect, nodeTitle, placeNodes, placesOf, removeNode, typeLabel, type Place } from "./flow-nodes";

type CardData = { node: FlowNode; bad: boolean; needs: string[] };
type Card = Node<CardData, "card">;

/** What a node shows: its title, its type as a badge and the start of its main template. */
function NodeCard({ data }: NodeProps<Card>) {
  const { node, bad, needs } = data;
  const text = [node.data.prompt, node.data.query, node.data.template, node.data.value].find(
    (value) => typeof value === "string" && value !== "",
  ) as string | undefined;
  return (
    <div className={bad ? "flow-card bad" : "flow-card"}>
      {node.type !== "trigger_start" && <Handle type="target" position={Position.Top} />}
      <span className="flow-card-head">
        <strong className="flow-card-title">{nodeTitle(node)}</strong>
        <span className="flow-card-type">{typeLabel(node.type)}</span>
      </span>
      {text && <span className="flow-card-text">{text}</span>}
      {needs.length > 0 && <span className="flow-card-needs">needs {needs.join(" and ")}</span>}
      {node.type !== "output" && <Handle type="source" position={Position.Bottom} />}
    </div>
  );
}

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
}

export default function FlowCanvas({ nodes, feedback, missing, selected, onSelect, setNodes }: FlowCanvasProps) {
  const cards = useMemo<Card[]>(() => {
    const places = placesOf(nodes);
    return nodes.map((node, i) => ({
      id: String(i),
      type: "card",
      position: places[i]!,
      data: {
        node,
        bad: feedback.some((f) => f.nodeId === node.id),
        needs: missing.filter((m) => m.nodeId === node.id).map((m) => m.need),
      },
      selected: i === selected,
      ariaLabel: `Node ${nodeTitle(node)} (${typeLabel(node.type)})`,
    }));
  }, [nodes, feedback, missing, selected]);
  const lines = useMemo<Edge[]>(() => {
    const seen = new Set<string>();
    const places = placesOf(nodes);
    const cycle = onCycle(nodes);
    return flowEdges(nodes).flatMap((edge) => {
      const { from, to, inOrder } = edge;
      const id = `${from}-${to}`;
      if (seen.has(id)) return [];
      seen.add(id);
      const back = places[to]!.y <= places[from]!.y;
      const looped = cycle(edge);
      const [source, target] = [nodeTitle(nodes[from]!), nodeTitle(nodes[to]!)];
      return [
        {
          id,
          source: String(from),
          target: String(to),
          type: back ? "back" : undefined,
          className:
            [inOrder ? "in-order" : "", back ? "back" : "", looped ? "cycle" : ""].filter(Boolean).join(" ") ||
            undefined,
          markerEnd: { type: MarkerType.ArrowClosed, ...(looped ? { color: "var(--danger)" } : {}) },
          label: back && looped ? `back to ${target}` : undefined,
          ariaLabel: back
            ? `From ${source} back to ${target}${looped ? ", a cycle" : ""}`
            : `From ${source} to ${target}${looped ? ", part of a cycle" : ""}`,
        },
      ];
    });
  }, [nodes]);

  // The canvas holds what it measures and what is being dragged; the draft holds the rest.
  // When the draft changes, the cards and lines are drawn anew, keeping each card's measured size
  // and each line's selection (adjusted while rendering, not in an effect).
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

  const instance = useRef<ReactFlowInstance<Card, Edge> | null>(null);
  const count = useRef(nodes.length);
  useEffect(() => {
    // A node added (by the buttons above) may be outside the view: bring every node into it.
    if (nodes.length > count.current)
      setTimeout(() => void instance.current?.fitView({ padding: 0.2, maxZoom: 1, duration: 200 }), 50);
    count.current = nodes.length;
  }, [nodes.length]);

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

  return (
    <div className="flow-canvas" data-testid="flow-canvas">
      {nodes.length === 0 && (
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
        onConnect={({ source, target }) => edit((placed) => connect(placed, Number(source), Number(target)))}
        onNodeDragStop={(_event, _node, dragged) =>
          setNodes(placeNodes(nodes, new Map<number, Place>(dragged.map((card) => [Number(card.id), card.position]))))
        }
        onInit={(flow) => {
          instance.current = flow;
        }}
        fitView
        fitViewOptions={{ padding: 0.2, maxZoom: 1 }}
        deleteKeyCode={["Backspace", "Delete"]}
        minZoom={0.2}
        colorMode="system"
      >
        <Background gap={16} />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
