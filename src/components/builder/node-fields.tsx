"use client";
// One flow node's fields (title, type, id, where the run goes next, its data), the same in the
// node list (a phone's whole editor) and beside the canvas.
import { ArrowDown, ArrowUp, Braces, Trash2, X } from "lucide-react";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { FormField } from "@/components/console";
import { NODE_TYPES, type FlowInput, type FlowNode } from "@/schemas/builder";
import { upstreamNodeIds, type Feedback } from "@/schemas/flow-graph";
import { TextArea, TextField } from "./fields";
import {
  connect,
  disconnect,
  insertAt,
  moveNode,
  nextIds,
  nodeTitle,
  outputName,
  readableId,
  removeNode,
  typeLabel,
} from "./flow-nodes";
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

/** What the variable menu offers: shown by human names, inserted as the reference runs read. */
interface Variable {
  group: string;
  shown: string;
  reference: string;
}

/** The flow's inputs and the outputs of the nodes that run before node `index`. */
function variablesFor(nodes: FlowNode[], index: number, inputs: FlowInput[]): Variable[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  return [
    ...inputs.map((input) => ({
      group: "Flow inputs",
      shown: input.label || readableId(input.key),
      reference: `{{inputs.${input.key}}}`,
    })),
    ...upstreamNodeIds(nodes, index).map((id) => {
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
function VariableMenu({
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
      <button
        ref={button}
        type="button"
        className="small"
        aria-haspopup="menu"
        aria-expanded={open}
        title={`Insert a variable into ${label}, where the cursor is`}
        onClick={() => setOpen(!open)}
      >
        <Braces size={14} aria-hidden /> Insert a variable
      </button>
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
  /** The flow's inputs, offered by the variable menu. */
  inputs?: FlowInput[];
  /** `group` names a field being typed in, so the editor's undo takes the typing back as one step. */
  setNodes: (nodes: FlowNode[], group?: string) => void;
  /** Called with the node's new index after it moves up or down, or null when it is deleted. */
  onMoved?: (index: number | null) => void;
}) {
  const node = nodes[index]!;
  const fields = useRef<Record<string, HTMLInputElement | HTMLTextAreaElement | null>>({});
  const [target, setTarget] = useState("");
  const setNode = (changes: Partial<FlowNode>, group?: string) =>
    setNodes(
      nodes.map((other, i) => (i === index ? { ...other, ...changes } : other)),
      group,
    );
  const setData = (key: string, value: unknown, group?: string) =>
    setNode({ data: { ...node.data, [key]: value } }, group);
  const move = (by: number) => {
    setNodes(moveNode(nodes, index, by));
    onMoved?.(index + by);
  };
  /** Puts a reference where the field's cursor was (the menu took the focus), then gives it back. */
  const insert = (key: string, reference: string) => {
    const field = fields.current[key];
    const { text, caret } = insertAt(
      String(node.data[key] ?? ""),
      reference,
      field?.selectionStart,
      field?.selectionEnd,
    );
    setData(key, text);
    requestAnimationFrame(() => {
      field?.focus();
      field?.setSelectionRange(caret, caret);
    });
  };
  const next = nextIds(nodes, index);
  const title = nodeTitle(node);
  const variables = variablesFor(nodes, index, inputs);
  const others = nodes.flatMap((other, i) => (i !== index && !next.includes(other.id) ? [{ other, i }] : []));
  const group = (key: string) => `${index}:${key}`;
  return (
    <div
      className={feedback.some((f) => f.nodeId === node.id) ? "item form node-fields bad" : "item form node-fields"}
      data-testid="flow-node"
    >
      <div className="node-head">
        <strong className="node-title">{title}</strong>
        <span className="node-badge">{typeLabel(node.type)}</span>
        <span className="node-actions">
          <button type="button" disabled={index === 0} onClick={() => move(-1)} aria-label="Move up">
            <ArrowUp size={16} aria-hidden />
          </button>
          <button type="button" disabled={index === nodes.length - 1} onClick={() => move(1)} aria-label="Move down">
            <ArrowDown size={16} aria-hidden />
          </button>
          <button
            type="button"
            onClick={() => {
              setNodes(removeNode(nodes, index));
              onMoved?.(null);
            }}
            aria-label={`Delete ${title}`}
          >
            <Trash2 size={16} aria-hidden /> Delete
          </button>
        </span>
      </div>
      <div className="node-grid">
        <TextField
          label="Title"
          value={typeof node.data.title === "string" ? node.data.title : ""}
          placeholder={readableId(node.id) || typeLabel(node.type)}
          onChange={(value) => {
            const { title: _drop, ...rest } = node.data;
            setNode({ data: value === "" ? rest : { ...rest, title: value } }, group("title"));
          }}
        />
        <FormField label="Type">
          <select value={node.type} onChange={(e) => setNode({ type: e.target.value })}>
            {!(NODE_TYPES as readonly string[]).includes(node.type) && <option>{node.type}</option>}
            {NODE_TYPES.map((type) => (
              <option key={type} value={type}>
                {typeLabel(type)}
              </option>
            ))}
          </select>
        </FormField>
        <FormField label="Node id">
          <input
            className="code"
            value={node.id}
            onChange={(e) => setNode({ id: e.target.value }, group("id"))}
            title="What templates and connections name this node by"
          />
        </FormField>
      </div>
      <div className="runs-next">
        <p className="muted" data-testid="runs-next" style={{ margin: 0 }}>
          {node.type === "output" ? (
            "The run ends with this output."
          ) : next.length === 0 ? (
            "The run ends here."
          ) : (
            <>
              Then runs:{" "}
              {next.map((id) => {
                const to = nodes.findIndex((other) => other.id === id);
                const name = to >= 0 ? nodeTitle(nodes[to]!) : id;
                return (
                  <span key={id} className="next-chip">
                    {name}
                    <button
                      type="button"
                      aria-label={`Disconnect ${name}`}
                      onClick={() => setNodes(disconnect(nodes, index, to))}
                    >
                      <X size={14} aria-hidden />
                    </button>
                  </span>
                );
              })}
            </>
          )}
        </p>
        {node.type !== "output" && others.length > 0 && (
          <div className="row connect-row">
            <FormField label="Connect to">
              <select value={target} onChange={(e) => setTarget(e.target.value)}>
                <option value="">Choose a node…</option>
                {others.map(({ other, i }) => (
                  <option key={other.id} value={String(i)}>
                    {nodeTitle(other)}
                  </option>
                ))}
              </select>
            </FormField>
            <button
              type="button"
              disabled={target === ""}
              onClick={() => {
                setNodes(connect(nodes, index, Number(target)));
                setTarget("");
              }}
            >
              Connect
            </button>
          </div>
        )}
      </div>
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
        ) : field.template ? (
          <div key={field.key} className="template-field">
            {field.multiline ? (
              <TextArea
                label={field.label}
                value={String(node.data[field.key] ?? "")}
                onChange={(value) => setData(field.key, value, group(field.key))}
                rows={2}
                code
                inputRef={(element) => {
                  fields.current[field.key] = element;
                }}
              />
            ) : (
              <TextField
                label={field.label}
                value={String(node.data[field.key] ?? "")}
                onChange={(value) => setData(field.key, value, group(field.key))}
                inputRef={(element) => {
                  fields.current[field.key] = element;
                }}
              />
            )}
            <VariableMenu
              label={field.label}
              variables={variables}
              onInsert={(reference) => insert(field.key, reference)}
            />
          </div>
        ) : (
          <TextField
            key={field.key}
            label={field.label}
            value={String(node.data[field.key] ?? "")}
            onChange={(value) => {
              const { [field.key]: _drop, ...rest } = node.data;
              setNode(
                { data: value === "" && field.key === "model" ? rest : { ...node.data, [field.key]: value } },
                group(field.key),
              );
            }}
          />
        ),
      )}
    </div>
  );
}
