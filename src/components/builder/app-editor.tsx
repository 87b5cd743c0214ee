"use client";
// The app editor: adviser, members (ordered by drag and drop or the arrow buttons),
// orchestration mode, goals, adviser instructions and the API config with its JSON Schemas.
import { ArrowDown, ArrowUp, GripVertical } from "lucide-react";
import { useState } from "react";
import Link from "next/link";
import { EntityName, EntityPicker, useEntities } from "@/components/entity-picker";
import { ScopedUsage } from "@/components/usage/scoped-usage";
import { ORCHESTRATION_MODES } from "@/schemas/builder";
import { EditorShell, type EditorBodyProps } from "./editor-shell";
import { JsonField, TextArea, TextField } from "./fields";
import type { Doc } from "./use-draft-editor";

type Member = { id: string; kind: "agent" | "flow"; position: number };

const MODE_HELP = {
  supervisor: "The adviser picks the members to consult.",
  sequential: "Every member in order, each seeing the previous replies.",
  broadcast: "All members at once; the adviser synthesizes.",
} as const;

function toWrite(view: Doc): Doc {
  return {
    name: view.name,
    slug: view.slug,
    description: view.description,
    adviser: view.adviser ? { id: view.adviser.id } : null,
    members: (view.members as Member[]).map((m) => ({ id: m.id, kind: m.kind, position: m.position })),
    orchestrationMode: view.orchestrationMode,
    goals: view.goals,
    adviserInstructions: view.adviserInstructions,
    api: view.api,
  };
}

export function AppEditor({ id }: { id: string }) {
  return (
    <EditorShell kind="apps" id={id} toWrite={toWrite}>
      {(props) => (
        <>
          <AppForm {...props} />
          <ScopedUsage
            scope={{ appId: id }}
            whose="This app's"
            empty={
              <>
                Nothing ran in this range. Its conversation turns and transactions land here as they finish, wherever
                they come from: try it in <Link href="/chat">Chat</Link>, publish it and call it over the API, or grant
                it to end users in a portal.
              </>
            }
          />
        </>
      )}
    </EditorShell>
  );
}

function AppForm({ doc, update }: EditorBodyProps) {
  const { entities } = useEntities(["agent", "flow"]);
  const [dragging, setDragging] = useState<number | null>(null);
  const published = new Map(entities.map((entity) => [entity.id, entity.published]));
  const members = doc.members as Member[];
  const adviserId = (doc.adviser as { id: string } | null)?.id;
  const setMembers = (next: Member[]) => update({ members: next.map((m, position) => ({ ...m, position })) });
  const move = (from: number, to: number) => {
    if (to < 0 || to >= members.length || from === to) return;
    const next = [...members];
    const [member] = next.splice(from, 1);
    next.splice(to, 0, member!);
    setMembers(next);
  };
  const api = doc.api as Doc;
  const setApi = (changes: Doc) => update({ api: { ...api, ...changes } });

  return (
    <>
      <div className="panel form" aria-label="App">
        <h2 style={{ marginTop: 0 }}>App</h2>
        <TextField label="Name" value={doc.name} onChange={(name) => update({ name })} testId="field-name" />
        <TextField label="Slug" value={doc.slug} onChange={(slug) => update({ slug })} />
        <TextArea
          label="Description"
          value={doc.description}
          onChange={(description) => update({ description })}
          rows={2}
        />
        <TextArea label="Goals" value={doc.goals} onChange={(goals) => update({ goals })} rows={2} />
      </div>
      <div className="panel form" aria-label="Orchestration">
        <h2 style={{ marginTop: 0 }}>Adviser and members</h2>
        <div className="list-editor" aria-label="Adviser">
          {adviserId ? (
            <div className="item row" data-testid="app-adviser">
              <span style={{ flex: 1 }}>
                Adviser: <EntityName kind="agent" id={adviserId} />{" "}
                <Unpublished show={published.get(adviserId) === false} />
              </span>
              <button type="button" onClick={() => update({ adviser: null })}>
                No adviser
              </button>
            </div>
          ) : (
            <p className="muted">No adviser: the built-in supervisor synthesizes the reply.</p>
          )}
          <EntityPicker
            kinds={["agent"]}
            label={adviserId ? "Change the adviser" : "Choose an adviser"}
            exclude={adviserId ? [adviserId] : []}
            emptyText="No agents yet: create one under Agents."
            onPick={(agent) => update({ adviser: { id: agent.id } })}
          />
        </div>
        <TextArea
          label="Adviser instructions"
          value={doc.adviserInstructions}
          onChange={(adviserInstructions) => update({ adviserInstructions })}
          rows={3}
        />
        <label>
          Orchestration mode
          <select value={doc.orchestrationMode} onChange={(e) => update({ orchestrationMode: e.target.value })}>
            {ORCHESTRATION_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {mode}
              </option>
            ))}
          </select>
        </label>
        <p className="muted">{MODE_HELP[doc.orchestrationMode as keyof typeof MODE_HELP]}</p>
        <div className="list-editor" aria-label="Members">
          {members.length === 0 && <p className="muted">No members yet.</p>}
          {members.map((member, index) => (
            <div
              key={member.id}
              className={`item row${dragging === index ? " dragging" : ""}`}
              draggable
              onDragStart={() => setDragging(index)}
              onDragOver={(e) => e.preventDefault()}
              onDrop={() => {
                if (dragging !== null) move(dragging, index);
                setDragging(null);
              }}
              onDragEnd={() => setDragging(null)}
              data-testid="app-member"
            >
              <GripVertical size={16} aria-hidden className="icon" style={{ cursor: "grab" }} />
              <span style={{ flex: 1 }}>
                {index + 1}. <EntityName kind={member.kind} id={member.id} />{" "}
                <span className="muted">({member.kind})</span> <Unpublished show={published.get(member.id) === false} />
              </span>
              <button type="button" aria-label="Move up" disabled={index === 0} onClick={() => move(index, index - 1)}>
                <ArrowUp size={16} aria-hidden className="icon" />
              </button>
              <button
                type="button"
                aria-label="Move down"
                disabled={index === members.length - 1}
                onClick={() => move(index, index + 1)}
              >
                <ArrowDown size={16} aria-hidden className="icon" />
              </button>
              <button type="button" onClick={() => setMembers(members.filter((_, i) => i !== index))}>
                Remove
              </button>
            </div>
          ))}
          <EntityPicker
            kinds={["agent", "flow"]}
            label="Add a member"
            exclude={members.map((m) => m.id)}
            emptyText="No agents or flows yet: create one under Agents or Flows."
            onPick={(entity) =>
              setMembers([...members, { id: entity.id, kind: entity.kind as Member["kind"], position: members.length }])
            }
          />
        </div>
      </div>
      <div className="panel form" aria-label="API">
        <h2 style={{ marginTop: 0 }}>API</h2>
        <div className="row">
          <label className="inline">
            <input
              type="checkbox"
              checked={Boolean(api.conversationEnabled)}
              onChange={(e) => setApi({ conversationEnabled: e.target.checked })}
            />
            Conversation endpoint
          </label>
          <label className="inline">
            <input
              type="checkbox"
              checked={Boolean(api.transactionEnabled)}
              onChange={(e) => setApi({ transactionEnabled: e.target.checked })}
            />
            Transaction endpoint
          </label>
        </div>
        <TextField label="Greeting" value={api.greeting} onChange={(greeting) => setApi({ greeting })} />
        <JsonField
          label="Transaction input JSON Schema"
          value={api.inputSchema}
          onChange={(inputSchema) => setApi({ inputSchema })}
        />
        <JsonField
          label="Transaction output JSON Schema"
          value={api.outputSchema}
          onChange={(outputSchema) => setApi({ outputSchema })}
        />
      </div>
    </>
  );
}

/** Said of an adviser or member without a live version: the app cannot be published until it has one. */
function Unpublished({ show }: { show: boolean }) {
  return show ? <span className="badge revoked">unpublished</span> : null;
}
