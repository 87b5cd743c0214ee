"use client";
// The app editor: adviser, members (ordered by drag and drop or the arrow buttons),
// orchestration mode, goals, adviser instructions, and the two endpoints: the conversation's
// greeting, the transaction's input and output JSON Schemas (as a form, schema-form.tsx) and a try of
// the live transaction. Each part is a section that folds.
import { ArrowDown, ArrowUp, GripVertical } from "lucide-react";
import { useState } from "react";
import Link from "next/link";
import { EntityName, EntityPicker, useEntities, type Entity } from "@/components/entity-picker";
import { ScopedUsage } from "@/components/usage/scoped-usage";
import { FormField, Select } from "@/components/console";
import { ORCHESTRATION_MODES } from "@/schemas/builder/builder";
import {
  MAX_DESCRIPTION_CHARS,
  MAX_GREETING_CHARS,
  MAX_INSTRUCTIONS_CHARS,
  MAX_LABEL_CHARS,
  MAX_NAME_CHARS,
} from "@/schemas/limits";
import { EditorShell, type EditorBodyProps } from "./editor-shell";
import type { PublishCheck } from "./publish-panel";
import { Section } from "./fields";
import { SchemaEditor } from "./schema-form";
import { TryTransaction } from "./try-transaction";
import type { Doc } from "./use-draft-editor";
import { DuplicateNameNote } from "./duplicate-name";

type Member = { id: string; kind: "agent" | "flow"; position: number };

/** Each mode's name as the picker and the section's summary say it. */
const MODE_NAMES = {
  supervisor: "Supervisor",
  sequential: "In order",
  broadcast: "All at once",
} as const satisfies Record<(typeof ORCHESTRATION_MODES)[number], string>;

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

/** Each agent and flow the app calls must have a live version before the app is published. */
function dependencyChecks(doc: Doc, entities: Entity[]): PublishCheck[] {
  const refs = [
    ...(doc.adviser ? [{ id: (doc.adviser as { id: string }).id, kind: "agent" as const }] : []),
    ...(doc.members as Member[]),
  ];
  return refs.map((ref) => {
    const entity = entities.find((e) => e.id === ref.id);
    const name = entity?.name ?? `this ${ref.kind}`;
    // Until the list has loaded, nothing is held back: the server checks again when publishing.
    const done = entity?.published !== false;
    return {
      label: done ? `The ${ref.kind} “${name}” is published` : `Publish the ${ref.kind} “${name}” first`,
      done,
      href: `/${ref.kind}s/${ref.id}`,
    };
  });
}

export function AppEditor({ id }: { id: string }) {
  const { entities } = useEntities(["agent", "flow"]);
  return (
    <EditorShell kind="apps" id={id} toWrite={toWrite} publishChecks={(doc) => dependencyChecks(doc, entities)}>
      {(props) => (
        <>
          <AppForm id={id} {...props} />
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

function AppForm({ id, doc, view, update }: EditorBodyProps & { id: string }) {
  const api = doc.api as Doc;
  const setApi = (changes: Doc) => update({ api: { ...api, ...changes } });

  return (
    <>
      <AppIdentitySection id={id} doc={doc} update={update} />
      <OrchestrationSection doc={doc} update={update} />
      <ConversationSection api={api} setApi={setApi} />
      <TransactionSection id={id} live={Boolean(view.published)} api={api} setApi={setApi} />
    </>
  );
}

type SectionProps = Pick<EditorBodyProps, "doc" | "update">;
type ApiProps = { api: Doc; setApi: (changes: Doc) => void };

/** The app's name (with the duplicate note), slug, description and goals. */
function AppIdentitySection({ id, doc, update }: SectionProps & { id: string }) {
  return (
    <Section title="App" summary={[doc.name, doc.slug].filter(Boolean).join(" · ")}>
      <FormField label="Name">
        <input
          value={doc.name}
          maxLength={MAX_NAME_CHARS}
          onChange={(e) => update({ name: e.target.value })}
          data-testid="field-name"
        />
      </FormField>
      <DuplicateNameNote kind="apps" name={doc.name} self={id} />
      <FormField label="Slug" hint="The app's short name in links and the API.">
        <input value={doc.slug} maxLength={MAX_LABEL_CHARS} onChange={(e) => update({ slug: e.target.value })} />
      </FormField>
      <FormField label="Description">
        <textarea
          rows={2}
          value={doc.description}
          maxLength={MAX_DESCRIPTION_CHARS}
          onChange={(e) => update({ description: e.target.value })}
        />
      </FormField>
      <FormField label="Goals" hint="What the app is for; the adviser reads it.">
        <textarea
          rows={2}
          value={doc.goals}
          maxLength={MAX_DESCRIPTION_CHARS}
          onChange={(e) => update({ goals: e.target.value })}
        />
      </FormField>
    </Section>
  );
}

/** The adviser, its instructions, the orchestration mode and the members in their order (dragged or moved). */
function OrchestrationSection({ doc, update }: SectionProps) {
  const { entities } = useEntities(["agent", "flow"]);
  const published = new Map(entities.map((entity) => [entity.id, entity.published]));
  const members = doc.members as Member[];
  const adviserId = (doc.adviser as { id: string } | null)?.id;
  const setMembers = (next: Member[]) => update({ members: next.map((m, position) => ({ ...m, position })) });
  return (
    <Section
      title="Adviser and members"
      label="Orchestration"
      summary={`${members.length} member${members.length === 1 ? "" : "s"}, ${(MODE_NAMES[doc.orchestrationMode as keyof typeof MODE_NAMES] ?? doc.orchestrationMode).toLowerCase()}`}
    >
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
      <FormField label="Adviser instructions">
        <textarea
          rows={3}
          value={doc.adviserInstructions}
          maxLength={MAX_INSTRUCTIONS_CHARS}
          onChange={(e) => update({ adviserInstructions: e.target.value })}
        />
      </FormField>
      <FormField label="Orchestration mode" hint={MODE_HELP[doc.orchestrationMode as keyof typeof MODE_HELP]}>
        <Select
          value={doc.orchestrationMode}
          onChange={(e) => update({ orchestrationMode: e.target.value })}
          options={ORCHESTRATION_MODES.map((mode) => ({ value: mode, label: MODE_NAMES[mode] }))}
        />
      </FormField>
      <MemberList members={members} published={published} setMembers={setMembers} />
    </Section>
  );
}

/** The members in their order: dragged, or moved up and down, removed, and added by name. */
function MemberList({
  members,
  published,
  setMembers,
}: {
  members: Member[];
  published: Map<string, boolean | undefined>;
  setMembers: (next: Member[]) => void;
}) {
  const [dragging, setDragging] = useState<number | null>(null);
  const move = (from: number, to: number) => {
    if (to < 0 || to >= members.length || from === to) return;
    const next = [...members];
    const [member] = next.splice(from, 1);
    next.splice(to, 0, member!);
    setMembers(next);
  };
  return (
    <div className="list-editor" aria-label="Members">
      {members.length === 0 && <p className="muted">No members yet: add an agent or a flow below.</p>}
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
            {index + 1}. <EntityName kind={member.kind} id={member.id} /> <span className="muted">({member.kind})</span>{" "}
            <Unpublished show={published.get(member.id) === false} />
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
  );
}

/** Whether the conversation endpoint is on, and the greeting. */
function ConversationSection({ api, setApi }: ApiProps) {
  return (
    <Section title="Conversation" summary={api.conversationEnabled ? "On" : "Off"}>
      <label className="inline">
        <input
          type="checkbox"
          checked={Boolean(api.conversationEnabled)}
          onChange={(e) => setApi({ conversationEnabled: e.target.checked })}
        />
        Conversation endpoint: people and systems talk with the app, turn by turn
      </label>
      <FormField label="Greeting" hint="The app's first words in a new conversation.">
        <input
          value={api.greeting}
          maxLength={MAX_GREETING_CHARS}
          onChange={(e) => setApi({ greeting: e.target.value })}
        />
      </FormField>
    </Section>
  );
}

/** Whether the transaction endpoint is on, its input and output schemas, and a try. */
function TransactionSection({ id, live, api, setApi }: ApiProps & { id: string; live: boolean }) {
  return (
    <Section title="Transaction" summary={transactionSummary(api)}>
      <label className="inline">
        <input
          type="checkbox"
          checked={Boolean(api.transactionEnabled)}
          onChange={(e) => setApi({ transactionEnabled: e.target.checked })}
        />
        Transaction endpoint: JSON in, JSON out, one call at a time
      </label>
      <SchemaEditor
        label="Input schema"
        hint="What a transaction must send. A call that does not match is refused before anything runs or is charged."
        value={api.inputSchema}
        onChange={(inputSchema) => setApi({ inputSchema })}
        testId="input-schema"
      />
      <SchemaEditor
        label="Output schema"
        hint="What the app must answer. An answer that does not match is an error for the caller (and still costs its credit)."
        value={api.outputSchema}
        onChange={(outputSchema) => setApi({ outputSchema })}
        testId="output-schema"
      />
      <TryTransaction appId={id} live={live} inputSchema={api.inputSchema} />
    </Section>
  );
}

/** The transaction section folded: whether it is on, and how many fields its input has. */
function transactionSummary(api: Doc): string {
  if (!api.transactionEnabled) return "Off";
  const properties = (api.inputSchema as { properties?: unknown }).properties;
  const count = properties && typeof properties === "object" ? Object.keys(properties).length : 0;
  return `On, ${count} input field${count === 1 ? "" : "s"}`;
}

/** Said of an adviser or member without a live version: the app cannot be published until it has one. */
function Unpublished({ show }: { show: boolean }) {
  return show ? <span className="badge revoked">unpublished</span> : null;
}
