"use client";
// "Insert a variable": the flow's inputs, the variables set and the outputs of the nodes that run
// before a node, picked by name rather than typed, so a reference cannot name a node that runs later.
import { Braces } from "lucide-react";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { FlowInput, FlowNode } from "@/schemas/builder/builder";
import { upstreamNodeIds } from "@/schemas/builder/flow-graph";
import { nodeTitle, outputName, readableId } from "./flow-nodes";
import { Button } from "@/components/console";

/** What the variable menu offers: shown by human names, inserted as the reference runs read. */
export interface Variable {
  group: string;
  shown: string;
  reference: string;
}

/** The flow's inputs, the variables and the outputs of the nodes that run before node `index`. */
export function variablesFor(nodes: FlowNode[], index: number, inputs: FlowInput[]): Variable[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const upstream = upstreamNodeIds(nodes, index);
  const names = upstream.flatMap((id) => {
    const name = byId.get(id)!.data.name;
    return byId.get(id)!.type === "set_variable" && typeof name === "string" && name !== "" ? [name] : [];
  });
  return [
    ...inputs.map((input) => ({
      group: "Flow inputs",
      shown: input.label || readableId(input.key),
      reference: `{{inputs.${input.key}}}`,
    })),
    ...[...new Set(names)].map((name) => ({
      group: "Variables",
      shown: readableId(name),
      reference: `{{vars.${name}}}`,
    })),
    ...upstream.map((id) => {
      const node = byId.get(id)!;
      return {
        group: "Outputs of earlier nodes",
        shown: `${nodeTitle(node)} → ${outputName(node.type)}`,
        reference: `{{nodes.${id}.output}}`,
      };
    }),
  ];
}

/**
 * "Insert a variable": a menu button (arrow keys, Enter, Escape) listing the variables a field may
 * read, so a reference is picked rather than typed and cannot name a node that runs later.
 */
export function VariableMenu({
  label,
  variables,
  onInsert,
}: {
  label: string;
  variables: Variable[];
  onInsert: (reference: string) => void;
}) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const items = () => [...(menu.current?.querySelectorAll<HTMLButtonElement>("[role=menuitem]") ?? [])];
  useEffect(() => {
    if (open) items()[0]?.focus();
  }, [open]);
  if (variables.length === 0) return null;

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const all = items();
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    const to: Record<string, number> = {
      ArrowDown: (at + 1) % all.length,
      ArrowUp: (at - 1 + all.length) % all.length,
      Home: 0,
      End: all.length - 1,
    };
    if (event.key in to) {
      event.preventDefault();
      all[to[event.key]!]?.focus();
    } else if (event.key === "Escape") {
      event.preventDefault();
      close();
    } else if (event.key === "Tab") setOpen(false);
  }
  const groups = [...new Set(variables.map((variable) => variable.group))];
  return (
    <div
      className="variable-menu"
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) setOpen(false);
      }}
    >
      <Button
        ref={button}
        type="button"
        className="small"
        aria-haspopup="menu"
        aria-expanded={open}
        title={`Insert a variable into ${label}, where the cursor is`}
        onClick={() => setOpen(!open)}
      >
        <Braces size={14} aria-hidden /> Insert a variable
      </Button>
      {open && (
        <div ref={menu} role="menu" aria-label={`Variables for ${label}`} onKeyDown={onKeyDown}>
          {groups.map((group) => (
            <div key={group} role="group" aria-label={group}>
              <p className="variable-menu-group" aria-hidden>
                {group}
              </p>
              {variables
                .filter((variable) => variable.group === group)
                .map((variable) => (
                  <button
                    key={variable.reference}
                    type="button"
                    role="menuitem"
                    tabIndex={-1}
                    title={variable.reference}
                    onClick={() => {
                      setOpen(false);
                      onInsert(variable.reference);
                    }}
                  >
                    {`{{${variable.shown}}}`}
                  </button>
                ))}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
