"use client";
// The node library: every node type the flow schema knows, on shelves, searchable; drag one onto
// the canvas, or click (Enter) to add it below the others.
import { Plus, Search } from "lucide-react";
import { useState } from "react";
import { LIBRARY_GROUPS, NODE_DRAG_TYPE, libraryEntries } from "../node-catalog";

export function NodeLibrary({ onAdd, hasStart }: { onAdd: (type: string) => void; hasStart: boolean }) {
  const [query, setQuery] = useState("");
  // A flow has one start: once it has it, the library no longer offers another.
  const entries = libraryEntries(query).filter((entry) => !(hasStart && entry.type === "trigger_start"));
  return (
    <nav className="node-library" aria-label="Node library">
      <label className="node-library-search">
        <Search size={16} aria-hidden />
        <input
          type="search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          placeholder="Search nodes"
          aria-label="Search nodes"
        />
      </label>
      {entries.length === 0 && <p className="muted">No node matches “{query}”.</p>}
      {LIBRARY_GROUPS.map((group) => {
        const shelf = entries.filter((entry) => entry.group === group);
        if (shelf.length === 0) return null;
        return (
          <section key={group} aria-label={group}>
            <h3>{group}</h3>
            <ul>
              {shelf.map((entry) => (
                <li key={entry.type}>
                  <button
                    type="button"
                    draggable
                    onDragStart={(event) => {
                      event.dataTransfer.setData(NODE_DRAG_TYPE, entry.type);
                      event.dataTransfer.effectAllowed = "copy";
                    }}
                    onClick={() => onAdd(entry.type)}
                    aria-label={`Add ${entry.label}`}
                    title={`Drag onto the canvas, or click to add ${entry.label}`}
                  >
                    <Plus size={14} aria-hidden />
                    <span>
                      <strong>{entry.label}</strong>
                      {entry.description && <small>{entry.description}</small>}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
        );
      })}
    </nav>
  );
}
