"use client";
// The studio's top bar: back to the flows, the flow's name and save state, undo and redo, the
// settings drawer and the test run.
import { ArrowLeft, List, Play, Redo2, Settings, Undo2, Workflow } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { Button, pageTitle } from "@/components/console";
import type { NodeHistory } from "../use-node-history";

export function StudioBar({
  name,
  status,
  history,
  onSettings,
  onRun,
  view,
  onView,
}: {
  name: string;
  status: ReactNode;
  history: NodeHistory;
  onSettings: () => void;
  onRun: () => void;
  /** At a desk: the steps drawn on the canvas or listed; on a phone there is only the list. */
  view?: "canvas" | "list";
  onView: (view: "canvas" | "list") => void;
}) {
  return (
    <header className="studio-bar">
      <Link href="/flows" className="studio-back" aria-label="All flows">
        <ArrowLeft size={18} aria-hidden />
      </Link>
      <title>{pageTitle(`${name || "Untitled flow"} · Flow studio`)}</title>
      <h1>{name || "Untitled flow"}</h1>
      <span className="studio-status">{status}</span>
      <span className="studio-actions">
        <span role="group" aria-label="History" className="studio-history">
          <button
            type="button"
            onClick={history.undo}
            disabled={!history.canUndo}
            title="Undo (Ctrl+Z)"
            aria-label="Undo"
          >
            <Undo2 size={16} aria-hidden /> <span className="studio-label">Undo</span>
          </button>
          <button
            type="button"
            onClick={history.redo}
            disabled={!history.canRedo}
            title="Redo (Ctrl+Shift+Z)"
            aria-label="Redo"
          >
            <Redo2 size={16} aria-hidden /> <span className="studio-label">Redo</span>
          </button>
        </span>
        {view && (
          <span role="group" aria-label="Steps view" className="studio-history">
            <button type="button" aria-pressed={view === "canvas"} onClick={() => onView("canvas")}>
              <Workflow size={16} aria-hidden /> <span className="studio-label">Canvas</span>
            </button>
            <button type="button" aria-pressed={view === "list"} onClick={() => onView("list")}>
              <List size={16} aria-hidden /> <span className="studio-label">List</span>
            </button>
          </span>
        )}
        <button type="button" onClick={onSettings} aria-label="Settings">
          <Settings size={16} aria-hidden /> <span className="studio-label">Settings</span>
        </button>
        <Button variant="primary" onClick={onRun}>
          <Play size={16} aria-hidden /> Test run
        </Button>
      </span>
    </header>
  );
}
