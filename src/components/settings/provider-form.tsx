"use client";
// Adding a model provider, or editing one: name, base URL, API key and the models it offers. The
// key is write-only: editing shows whether one is stored, an empty field keeps it, and removing
// it is a choice of its own.
import { useMutation } from "@tanstack/react-query";
import { useWatch } from "react-hook-form";
import {
  Button,
  ErrorAlert,
  fieldProblem,
  FormField,
  notifyDone,
  Panel,
  Select,
  useZodForm,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { CreateModelProviderInput, type ModelProvider, type ProviderKind } from "@/schemas/org/integration";
import { MAX_CREDENTIAL_CHARS, MAX_NAME_CHARS } from "@/schemas/limits";
import { EndpointUrlField, SlugField } from "./endpoint-fields";

/** "gpt-4o, llama3:8b" → chat models; the same for embedding models. */
function modelList(text: string, kind: "chat" | "embedding") {
  return text
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean)
    .map((id) => ({ id, kind }));
}

function modelText(provider: ModelProvider | undefined, kind: "chat" | "embedding"): string {
  return (provider?.models ?? [])
    .filter((model) => model.kind === kind)
    .map((model) => model.id)
    .join(", ");
}

function keyHint(provider: ModelProvider | undefined): string {
  if (!provider) return "Optional: a local server may need none. Stored encrypted and never shown again.";
  return provider.hasApiKey
    ? "A key is stored. Leave this empty to keep it, or type a new one to replace it."
    : "No key is stored. Leave this empty to use none.";
}

/** The form as typed: the API's fields, the models as comma-separated ids, the key's removal a switch. */
interface ProviderFields {
  slug: string;
  kind: ProviderKind;
  name: string;
  baseUrl: string;
  apiKey: string;
  removeKey: boolean;
  chatModels: string;
  embeddingModels: string;
}

/** The create input the fields make (an edit sends the part the update takes); an empty text is no value. */
function providerInput(fields: ProviderFields): CreateModelProviderInput {
  return {
    slug: fields.slug,
    kind: fields.kind,
    name: fields.name || fields.slug,
    ...(fields.baseUrl ? { baseUrl: fields.baseUrl } : {}),
    ...(fields.apiKey && !fields.removeKey ? { apiKey: fields.apiKey } : {}),
    models: [
      ...modelList(fields.chatModels, "chat"),
      ...(fields.kind === "openai-compatible" ? modelList(fields.embeddingModels, "embedding") : []),
    ],
  };
}

/** Where a problem of the input shows: the models beside the chat models' field. */
function providerField(path: readonly PropertyKey[]): keyof ProviderFields | null {
  const [field] = path;
  if (field === "models") return "chatModels";
  return typeof field === "string" && field in EMPTY_FIELDS ? (field as keyof ProviderFields) : null;
}

const EMPTY_FIELDS: ProviderFields = {
  slug: "",
  kind: "openai-compatible",
  name: "",
  baseUrl: "",
  apiKey: "",
  removeKey: false,
  chatModels: "",
  embeddingModels: "",
};

/** The form's state and its saving: a create, or an update of `provider`; `onDone` runs after a save. */
function useProviderForm(provider: ModelProvider | undefined, onDone: () => void) {
  const trpc = useTRPC();
  const form = useZodForm(CreateModelProviderInput, {
    defaultValues: provider
      ? {
          ...EMPTY_FIELDS,
          slug: provider.slug,
          kind: provider.kind,
          name: provider.name,
          baseUrl: provider.baseUrl ?? "",
          chatModels: modelText(provider, "chat"),
          embeddingModels: modelText(provider, "embedding"),
        }
      : EMPTY_FIELDS,
    asInput: providerInput,
    fieldOf: providerField,
  });
  const kind = useWatch({ control: form.control, name: "kind" });
  const removeKey = useWatch({ control: form.control, name: "removeKey" });

  const saved = (result: ModelProvider) => {
    notifyDone(
      provider
        ? `${result.name} was saved.`
        : `${result.name} was added: its models are now in the agent editor's model list.`,
    );
    form.reset(EMPTY_FIELDS);
    onDone();
  };
  const create = useMutation(trpc.modelProviders.create.mutationOptions({ onSuccess: saved }));
  const update = useMutation(trpc.modelProviders.update.mutationOptions({ onSuccess: saved }));

  const submit = form.handleSubmit(({ name, baseUrl, apiKey, models, ...created }) => {
    if (provider)
      update.mutate({
        providerId: provider.id,
        name,
        baseUrl: baseUrl ?? null,
        ...(form.getValues("removeKey") ? { apiKey: null } : apiKey ? { apiKey } : {}),
        models,
      });
    else create.mutate({ ...created, name, baseUrl, apiKey, models });
  });
  return {
    form,
    kind,
    removeKey,
    submit,
    pending: create.isPending || update.isPending,
    error: create.error ?? update.error,
  };
}

/** A new provider's slug and kind, which cannot change afterwards. */
function NewProviderFields({ form }: { form: ReturnType<typeof useProviderForm>["form"] }) {
  return (
    <div className="row">
      <SlugField
        registration={form.register("slug")}
        error={fieldProblem(form, "slug")}
        hint="Agents name its models <slug>/<model id>, e.g. local/llama3.1"
        placeholder="e.g. local"
      />
      <FormField label="Kind">
        <Select
          {...form.register("kind")}
          options={[
            { value: "openai-compatible", label: "OpenAI-compatible (Ollama, vLLM, OpenAI…)" },
            { value: "anthropic", label: "Anthropic" },
          ]}
        />
      </FormField>
    </div>
  );
}

/** The form for a new provider, or for `provider` when given; `onDone` runs after a save or a cancel. */
export function ProviderForm({ provider, onDone }: { provider?: ModelProvider; onDone: () => void }) {
  const { form, kind, removeKey, submit, pending, error } = useProviderForm(provider, onDone);
  const heading = provider ? `Edit ${provider.name}` : "Add a provider";
  return (
    <Panel title={heading} label={heading} onSubmit={(event) => void submit(event)}>
      {provider ? (
        <p className="muted">
          Agents name its models <code>{provider.slug}/&lt;model id&gt;</code>; the slug and kind cannot change.
        </p>
      ) : (
        <NewProviderFields form={form} />
      )}
      <FormField label="Name" hint="Shown in the agent editor's model list" error={fieldProblem(form, "name")}>
        <input maxLength={MAX_NAME_CHARS} placeholder="e.g. Ollama on the GPU box" {...form.register("name")} />
      </FormField>
      <EndpointUrlField
        label={kind === "anthropic" ? "Base URL (optional)" : "Base URL"}
        hint={
          kind === "anthropic"
            ? "Leave empty for Anthropic's own API"
            : "The address that serves /chat/completions, e.g. http://localhost:11434/v1 for Ollama"
        }
        required={kind === "openai-compatible"}
        registration={form.register("baseUrl")}
        error={fieldProblem(form, "baseUrl")}
        placeholder="https://api.openai.com/v1"
      />
      <FormField label="API key" hint={keyHint(provider)} error={fieldProblem(form, "apiKey")}>
        <input
          type="password"
          autoComplete="off"
          maxLength={MAX_CREDENTIAL_CHARS}
          disabled={removeKey}
          {...form.register("apiKey")}
        />
      </FormField>
      {provider?.hasApiKey && (
        <label className="inline">
          <input type="checkbox" {...form.register("removeKey")} />
          Remove the stored key
        </label>
      )}
      <FormField
        label="Chat models"
        hint="Comma-separated model ids as the server names them, e.g. llama3.1, qwen2.5"
        error={fieldProblem(form, "chatModels")}
      >
        <input maxLength={MAX_CREDENTIAL_CHARS} placeholder="gpt-4o-mini, gpt-4o" {...form.register("chatModels")} />
      </FormField>
      {kind === "openai-compatible" && (
        <FormField
          label="Embedding models"
          hint="Optional, comma-separated. The organization's first embedding model also ranks knowledge search by meaning"
        >
          <input
            maxLength={MAX_CREDENTIAL_CHARS}
            placeholder="text-embedding-3-small"
            {...form.register("embeddingModels")}
          />
        </FormField>
      )}
      <ErrorAlert error={fieldProblem(form, "root") ?? error} />
      <div className="row">
        <Button variant="primary" type="submit" disabled={pending}>
          {provider ? "Save changes" : "Add provider"}
        </Button>
        {provider && (
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
    </Panel>
  );
}
