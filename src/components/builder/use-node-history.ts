"use client";
// The flow editors' undo and redo over the draft's nodes (flow-history.ts), with the keyboard:
// Ctrl/Cmd+Z, Shift+Ctrl/Cmd+Z and Ctrl+Y outside text fields (where they edit the text).
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { FlowNode } from "@/schemas/builder/builder";
import { emptyHistory, record, redo, undo, type History } from "./flow-history";

export interface NodeHistory {
  /** Every edit of the nodes is a step undo takes back; `group` joins the keystrokes of one field. */
  setNodes: (next: FlowNode[], group?: string) => void;
  undo: () => void;
  redo: () => void;
  canUndo: boolean;
  canRedo: boolean;
}

export function useNodeHistory(nodes: FlowNode[], write: (nodes: FlowNode[]) => void): NodeHistory {
  const [history, setHistory] = useState<History<FlowNode[]>>(emptyHistory);
  const setNodes = (next: FlowNode[], group?: string) => {
    setHistory((current) => record(current, nodes, group));
    write(next);
  };
  const travel = (step: typeof undo) => {
    const back = step(history, nodes);
    if (!back) return;
    setHistory(back.history);
    write(back.state);
  };
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
  return {
    setNodes,
    undo: () => travel(undo),
    redo: () => travel(redo),
    canUndo: history.past.length > 0,
    canRedo: history.future.length > 0,
  };
}
