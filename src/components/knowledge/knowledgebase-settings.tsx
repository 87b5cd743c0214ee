"use client";
// A knowledgebase's settings: name, description, search language, search path and reranking.
// The form checks its values with the API's own schema (UpdateKnowledgebaseInput) before sending,
// and shows a refusal from the server beside the field it names, as the portal settings do.
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useWatch } from "react-hook-form";
import {
  ErrorAlert,
  errorEnvelope,
  fieldProblem,
  FormActions,
  FormField,
  notifyDone,
  Panel,
  RadioGroup,
  refusedField,
  Select,
  useFieldValue,
  useUnsavedChanges,
  useZodForm,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import {
  KNOWLEDGEBASE_LANGUAGES,
  UpdateKnowledgebaseInput,
  type KnowledgebaseLanguage,
  type KnowledgebaseSummary,
} from "@/schemas/knowledge/knowledgebase";
import { useRefreshKnowledgebase } from "./use-refresh-knowledgebase";
import { pick } from "@/lib/pick";

type Settings = Pick<KnowledgebaseSummary, "name" | "description" | "language" | "searchMode" | "rerank">;
type Field = keyof Settings;
const FIELDS: Field[] = ["name", "description", "language", "searchMode", "rerank"];

const SEARCH_MODES = [
  {
    value: "auto",
    label: "Automatic: hybrid when the organization has an embedding model",
    sentence:
      "Matches meaning as well as words, for people who ask in their own words; words only until the model has embedded this knowledgebase.",
  },
  {
    value: "lexical",
    label: "Lexical only",
    sentence:
      "Matches words only and never sends a question to an embedding model; enough when questions use the documents' words (names, codes, error messages).",
  },
] as const satisfies { value: Settings["searchMode"]; label: string; sentence: string }[];

function languageName(language: KnowledgebaseLanguage): string {
  return language === "simple" ? "Simple (no language)" : language[0]!.toUpperCase() + language.slice(1);
}

/** The settings in one line, for the knowledgebase's page. */
export function settingsSummary(kb: Settings): string {
  const search = kb.searchMode === "auto" ? "Automatic" : "Lexical only";
  return `Search: ${search} · Reranking: ${kb.rerank ? "On" : "Off"} · Language: ${languageName(kb.language)}`;
}

/** The form's fields of the API's update input (the knowledgebase is the page's). */
const SettingsFields = UpdateKnowledgebaseInput.omit({ knowledgebaseId: true });

/** The settings form, opened from the page's Settings button; closes after a save. */
export function KnowledgebaseSettings({
  knowledgebase,
  onClose,
}: {
  knowledgebase: KnowledgebaseSummary;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const refresh = useRefreshKnowledgebase();
  // Seeded once: the page polls the knowledgebase while sources index, and edits must survive that.
  const [saved] = useState<Settings>(() => settingsOf(knowledgebase));
  const form = useZodForm(SettingsFields, { defaultValues: saved });
  const watched = useWatch({ control: form.control });
  const values: Settings = { ...saved, ...watched };
  const [searchMode, setSearchMode] = useFieldValue(form, "searchMode");
  const changed = FIELDS.filter((field) => values[field] !== saved[field]);
  useUnsavedChanges(changed.length > 0);
  const update = useMutation(
    trpc.knowledge.update.mutationOptions({
      onSuccess: () => {
        void refresh();
        notifyDone("Knowledgebase settings saved.");
        onClose();
      },
    }),
  );
  // A refusal from the server goes with any edit that may answer it.
  const edited = { onChange: () => update.reset() };

  // Only what changed: a PATCH of the language re-indexes, so an unchanged one is not sent.
  const submit = form.handleSubmit((input) =>
    update.mutate({
      knowledgebaseId: knowledgebase.id,
      ...Object.fromEntries(changed.map((field) => [field, input[field]])),
    }),
  );

  const refused = update.error ? refusedField(update.error) : null;
  // A refusal about one of the form's fields shows beside it, any other in the form's actions.
  const refusedHere = refused !== null && FIELDS.includes(refused as Field);
  const problemOf = (field: Field) =>
    fieldProblem(form, field) ?? (refused === field ? errorEnvelope(update.error).message : null);
  const firstProblem = FIELDS.map((field) => fieldProblem(form, field)).find(Boolean);
  const languageChanged = values.language !== saved.language;

  return (
    <Panel
      title="Settings"
      label="Knowledgebase settings"
      onSubmit={(event) => void submit(event)}
      testId="knowledgebase-settings"
    >
      {/* No maxLength on the texts: a pasted text past the bound would be cut silently; the schema says so instead. */}
      <FormField label="Name" error={problemOf("name")}>
        <input required {...form.register("name", edited)} />
      </FormField>
      <FormField label="Description" error={problemOf("description")}>
        <textarea rows={2} {...form.register("description", edited)} />
      </FormField>
      <FormField
        label="Language"
        hint={
          languageChanged
            ? `Saving re-indexes every page and document for ${languageName(values.language)} before it finishes; until then searches read ${languageName(saved.language)}.`
            : 'How search matches words: English finds "signed" for "signing" and skips words like "the"; Simple only lowercases, for text in several languages.'
        }
        error={problemOf("language")}
      >
        <Select
          {...form.register("language", edited)}
          options={KNOWLEDGEBASE_LANGUAGES.map((language) => ({ value: language, label: languageName(language) }))}
        />
      </FormField>
      <RadioGroup
        legend="Search mode"
        name="searchMode"
        choices={SEARCH_MODES.map((mode) => ({ value: mode.value, label: mode.label, hint: mode.sentence }))}
        value={searchMode ?? saved.searchMode}
        onChange={(mode) => (setSearchMode(mode), update.reset())}
      />
      <fieldset className="bare choices">
        <legend>Reranking</legend>
        <label className="inline choice">
          <input type="checkbox" {...form.register("rerank", edited)} />
          <span>
            Rerank with the organization&apos;s chat model
            <span className="muted">
              {values.searchMode === "lexical"
                ? "No effect while search is lexical only: no question leaves the server."
                : "The chat model reorders the best 20 results of each search, adding up to 2 s; its provider bills the tokens."}
            </span>
          </span>
        </label>
      </fieldset>
      {/* A field shows only the message; screen readers still hear the problem when it happens. */}
      {firstProblem && <ErrorAlert error={firstProblem} announceOnly />}
      {refusedHere && <ErrorAlert error={update.error} announceOnly />}
      <FormActions
        error={refusedHere ? null : update.error}
        submitLabel={update.isPending ? "Saving…" : languageChanged ? "Save and re-index" : "Save"}
        pending={update.isPending}
        disabled={changed.length === 0}
      >
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </FormActions>
    </Panel>
  );
}

function settingsOf(kb: KnowledgebaseSummary): Settings {
  return pick(kb, FIELDS);
}
