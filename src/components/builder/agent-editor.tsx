"use client";
// The agent editor: identity, instructions, model (from GET /models), built-ins, knowledge and
// flow attachments, integrations (MCP connections and their tools), conversation starters and
// questions. Autosaves through EditorShell.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { CheckboxGroup, LoadMore, Select, useCursorList } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { MAX_FALLBACK_MODELS } from "@/schemas/builder/builder";
import { EditorShell, type EditorBodyProps } from "./editor-shell";
import { IntegrationsField } from "./integrations-field";
import { KnowledgebaseName, KnowledgebasePicker } from "./knowledgebase-picker";
import { LinesField, QuestionsField, Section, TextArea, TextField } from "./fields";
import { modelOptions, type ModelList } from "./model-options";
import type { Doc } from "./use-draft-editor";
import { NameSlugDescription } from "./duplicate-name";
import { itemStateWords } from "@/lib/item-state";

const WRITE_FIELDS = [
  "name",
  "slug",
  "description",
  "identity",
  "systemInstruction",
  "model",
  "fallbackModels",
  "builtIns",
  "flows",
  "integrations",
  "outputTemplateIds",
  "conversationStarters",
  "questions",
];
const BUILT_INS = [
  ["webSearch", "Web search"],
  ["webScrape", "Web scrape"],
  ["deepResearch", "Deep research"],
  ["artifacts", "Artifacts"],
  ["voice", "Voice"],
] as const;

function toWrite(view: Doc): Doc {
  const doc: Doc = Object.fromEntries(WRITE_FIELDS.map((field) => [field, view[field]]));
  doc.knowledge = (view.knowledge as { knowledgebaseId: string }[]).map((k) => ({
    knowledgebaseId: k.knowledgebaseId,
  }));
  return doc;
}

export function AgentEditor({ id }: { id: string }) {
  return (
    <EditorShell kind="agents" id={id} toWrite={toWrite}>
      {(props) => <AgentForm {...props} />}
    </EditorShell>
  );
}

function unavailableNote(labels: string[], reason: string): string {
  return `${labels.join(", ")} ${labels.length > 1 ? "are" : "is"} unavailable: ${reason}.`;
}

type BuiltInStatus = { name: string; available: boolean; reason: string | null }[];

/** The built-ins as checkboxes; one this deployment cannot provide is marked and cannot be turned on (GET /models says why). */
function BuiltInsField({
  value,
  status,
  onChange,
}: {
  value: Record<string, boolean>;
  status: BuiltInStatus | undefined;
  onChange: (builtIns: Record<string, boolean>) => void;
}) {
  const reasonOf = (key: string) => status?.find((b) => b.name === key && !b.available)?.reason ?? null;
  const reasons = [...new Set(BUILT_INS.map(([key]) => reasonOf(key)).filter((reason) => reason !== null))];
  const reasonId = (reason: string) => `builtins-unavailable-${reasons.indexOf(reason)}`;
  return (
    <fieldset style={{ border: 0, padding: 0 }}>
      <legend className="muted">Built-in tools</legend>
      <div className="row">
        {BUILT_INS.map(([key, label]) => {
          const reason = reasonOf(key);
          return (
            <label key={key} className="inline" data-testid={`builtin-${key}`}>
              <input
                type="checkbox"
                checked={Boolean(value[key])}
                // One already on stays switchable, so it can be turned off.
                disabled={reason !== null && !value[key]}
                aria-describedby={reason === null ? undefined : reasonId(reason)}
                onChange={(e) => onChange({ ...value, [key]: e.target.checked })}
              />
              {label}
              {/* Not an error of the agent's: a neutral mark, the reason said under the list. */}
              {reason !== null && (
                <span className="badge neutral" title={reason}>
                  unavailable here
                </span>
              )}
            </label>
          );
        })}
      </div>
      {reasons.map((reason) => (
        <p key={reason} id={reasonId(reason)} className="muted" style={{ margin: "0.4rem 0 0" }}>
          {unavailableNote(
            BUILT_INS.filter(([key]) => reasonOf(key) === reason).map(([, label]) => label),
            reason,
          )}
        </p>
      ))}
    </fieldset>
  );
}

/** Whether the agent has anything a provider model would call as a tool. */
function usesTools(doc: Doc): boolean {
  return (
    doc.flows.length > 0 ||
    doc.integrations.length > 0 ||
    Object.values(doc.builtIns as Record<string, boolean>).some(Boolean)
  );
}

/** The model picker: the organization's models grouped by provider, and what the choice means for tools. */
function ModelField({
  value,
  models,
  usesTools,
  onChange,
}: {
  value: string;
  models: ModelList | undefined;
  usesTools: boolean;
  onChange: (model: string) => void;
}) {
  const builtIn = models?.find((model) => model.id === value)?.provider === "builtin";
  return (
    <div className="field">
      <label htmlFor="agent-model">Model</label>
      <Select
        id="agent-model"
        aria-describedby="agent-model-hint"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        options={[
          ...(models && !models.some((m) => m.id === value)
            ? [{ value, label: `${value} (unavailable: runs on the built-in model)` }]
            : []),
          ...modelOptions(models),
        ]}
      />
      <p id="agent-model-hint" className="hint">
        {builtIn && usesTools
          ? "The built-in model calls no tools: it answers from knowledge by word matching. Pick a provider's model for the agent to call its flows, built-ins and integrations."
          : "Provider models call the agent's flows, knowledge search, built-ins and integrations as tools; the built-in model answers from knowledge by word matching."}{" "}
        Admins add model servers under <Link href="/settings/providers">Model providers</Link>.
      </p>
    </div>
  );
}

/** The model and, in order, its fallbacks: "gpt-4o, then claude-3, then atrium-offline". */
function modelSummary(doc: Doc): string {
  return [doc.model, ...((doc.fallbackModels as string[] | undefined) ?? [])].join(", then ");
}

/**
 * The models tried, in order, when the agent's model fails before any output (after one retry):
 * picked from the same list as the model, at most MAX_FALLBACK_MODELS, each once.
 */
function FallbackModelsField({
  value,
  primary,
  models,
  onChange,
}: {
  value: string[];
  primary: string;
  models: ModelList | undefined;
  onChange: (fallbackModels: string[]) => void;
}) {
  const nameOf = (id: string) => models?.find((model) => model.id === id)?.name ?? id;
  const move = (index: number, by: number) => {
    const next = [...value];
    [next[index], next[index + by]] = [next[index + by]!, next[index]!];
    onChange(next);
  };
  return (
    <fieldset className="bare fallback-models" data-testid="fallback-models">
      <legend className="muted">Fallback models</legend>
      <p className="muted fallback-hint">
        Tried in this order when the model fails before answering (rate limited, down, timed out), after one retry;
        never once the answer has started. The run is charged once, at the price of the model that answered.
      </p>
      {value.length > 0 && (
        <ol className="fallback-list">
          {value.map((id, index) => (
            <li key={id} className="row">
              <span>
                {nameOf(id)} <code className="muted">{id}</code>
                {models && !models.some((model) => model.id === id) && (
                  <span className="badge revoked">not offered</span>
                )}
              </span>
              <button type="button" disabled={index === 0} onClick={() => move(index, -1)}>
                Up<span className="visually-hidden"> {nameOf(id)}</span>
              </button>
              <button type="button" disabled={index === value.length - 1} onClick={() => move(index, 1)}>
                Down<span className="visually-hidden"> {nameOf(id)}</span>
              </button>
              <button type="button" onClick={() => onChange(value.filter((other) => other !== id))}>
                Remove<span className="visually-hidden"> {nameOf(id)}</span>
              </button>
            </li>
          ))}
        </ol>
      )}
      {value.length < MAX_FALLBACK_MODELS ? (
        <div className="field">
          <label htmlFor="agent-fallback-add">Add a fallback model</label>
          <Select
            id="agent-fallback-add"
            value=""
            onChange={(event) => event.target.value && onChange([...value, event.target.value])}
            placeholder="Choose a model…"
            options={modelOptions(models, [primary, ...value])}
          />
        </div>
      ) : (
        <p className="muted">At most {MAX_FALLBACK_MODELS} fallback models.</p>
      )}
    </fieldset>
  );
}

function AgentForm({ doc, view, update }: EditorBodyProps) {
  return (
    <>
      <IdentitySection doc={doc} update={update} />
      <BehaviourSection doc={doc} update={update} />
      <AttachmentsSection doc={doc} view={view} update={update} />
      <IntegrationsField value={doc.integrations} onChange={(integrations) => update({ integrations })} />
      <ConversationSection doc={doc} update={update} />
    </>
  );
}

type SectionProps = Pick<EditorBodyProps, "doc" | "update">;

/** Who the agent is: its name, role, summary, goals, scope, persona and guardrails. */
function IdentitySection({ doc, update }: SectionProps) {
  const identity = doc.identity as Doc;
  const setIdentity = (changes: Doc) => update({ identity: { ...identity, ...changes } });
  return (
    <Section title="Identity" summary={[doc.name, identity.role].filter(Boolean).join(" · ")}>
      <NameSlugDescription kind="agents" doc={doc} update={update} />
      <TextField
        label="Role"
        value={identity.role}
        onChange={(role) => setIdentity({ role })}
        placeholder="e.g. Support specialist"
      />
      <TextArea label="Summary" value={identity.summary} onChange={(summary) => setIdentity({ summary })} rows={2} />
      <LinesField label="Goals" value={identity.goals} onChange={(goals) => setIdentity({ goals })} />
      <LinesField
        label="Out of scope"
        value={identity.outOfScope}
        onChange={(outOfScope) => setIdentity({ outOfScope })}
      />
      <LinesField
        label="Persona traits"
        value={identity.personaTraits}
        onChange={(personaTraits) => setIdentity({ personaTraits })}
      />
      <LinesField
        label="Guardrails"
        value={identity.guardrails}
        onChange={(guardrails) => setIdentity({ guardrails })}
      />
    </Section>
  );
}

/** The system instruction, the model with its fallbacks, and the built-in tools. */
function BehaviourSection({ doc, update }: SectionProps) {
  const trpc = useTRPC();
  const models = useQuery(trpc.models.list.queryOptions({}));
  return (
    <Section title="Instructions and model" label="Behaviour" summary={modelSummary(doc)}>
      <TextArea
        label="System instruction"
        value={doc.systemInstruction}
        onChange={(systemInstruction) => update({ systemInstruction })}
        rows={6}
      />
      <ModelField
        value={doc.model}
        models={models.data?.models}
        usesTools={usesTools(doc)}
        onChange={(model) => update({ model })}
      />
      <FallbackModelsField
        value={doc.fallbackModels ?? []}
        primary={doc.model}
        models={models.data?.models}
        onChange={(fallbackModels) => update({ fallbackModels })}
      />
      <BuiltInsField
        value={doc.builtIns}
        status={models.data?.builtIns}
        onChange={(builtIns) => update({ builtIns })}
      />
    </Section>
  );
}

/** The knowledgebases attached and the flows the agent may run. */
function AttachmentsSection({ doc, view, update }: Pick<EditorBodyProps, "doc" | "view" | "update">) {
  const trpc = useTRPC();
  const flows = useCursorList(
    (cursor) => trpc.flows.list.queryOptions({ include: "drafts", limit: 100, ...(cursor ? { cursor } : {}) }),
    (page) => page.flows,
  );
  const titles = new Map(
    (view.knowledge as { knowledgebaseId: string; title: string }[]).map((k) => [k.knowledgebaseId, k.title]),
  );
  return (
    <Section
      title="Knowledge and flows"
      label="Attachments"
      summary={`${doc.knowledge.length} knowledgebase${doc.knowledge.length === 1 ? "" : "s"}, ${doc.flows.length} flow${doc.flows.length === 1 ? "" : "s"}`}
    >
      <div className="list-editor">
        {(doc.knowledge as { knowledgebaseId: string }[]).map((k) => (
          <div className="row" key={k.knowledgebaseId} data-testid="attached-knowledgebase">
            <KnowledgebaseName id={k.knowledgebaseId} fallback={titles.get(k.knowledgebaseId)} />
            <button
              type="button"
              onClick={() =>
                update({ knowledge: doc.knowledge.filter((x: Doc) => x.knowledgebaseId !== k.knowledgebaseId) })
              }
            >
              Detach
            </button>
          </div>
        ))}
        <KnowledgebasePicker
          label="Attach a knowledgebase"
          exclude={(doc.knowledge as { knowledgebaseId: string }[]).map((k) => k.knowledgebaseId)}
          onPick={(knowledgebaseId) => update({ knowledge: [...doc.knowledge, { knowledgebaseId }] })}
        />
      </div>
      <CheckboxGroup
        legend="Flows this agent may run"
        legendClassName="muted"
        lead={flows.isLoaded && flows.items.length === 0 && <p className="muted">No flows yet.</p>}
        choices={flows.items.map((flow) => ({
          value: flow.id,
          label: (
            <>
              {flow.name} <span className="muted">{itemStateWords(flow)}</span>
            </>
          ),
        }))}
        value={doc.flows as string[]}
        onChange={(flowIds) => update({ flows: flowIds })}
      >
        <LoadMore list={flows} />
      </CheckboxGroup>
    </Section>
  );
}

/** The starters offered before the first message, and the questions asked of the user. */
function ConversationSection({ doc, update }: SectionProps) {
  return (
    <Section
      title="Conversation"
      summary={`${doc.conversationStarters.length} starter${doc.conversationStarters.length === 1 ? "" : "s"}, ${doc.questions.length} question${doc.questions.length === 1 ? "" : "s"}`}
    >
      <LinesField
        label="Conversation starters"
        value={doc.conversationStarters}
        onChange={(conversationStarters) => update({ conversationStarters })}
      />
      <QuestionsField value={doc.questions} onChange={(questions) => update({ questions })} />
    </Section>
  );
}
