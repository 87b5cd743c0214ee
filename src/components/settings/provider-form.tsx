"use client";
// Adding a model provider, or editing one: name, base URL, API key and the models it offers. The
// key is write-only: editing shows whether one is stored, an empty field keeps it, and removing
// it is a choice of its own.
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, ErrorAlert, FormField, notifyDone, Panel, Select } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import type { ModelProvider, ProviderKind } from "@/schemas/org/integration";
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

/** The form for a new provider, or for `provider` when given; `onDone` runs after a save or a cancel. */
export function ProviderForm({ provider, onDone }: { provider?: ModelProvider; onDone: () => void }) {
  const trpc = useTRPC();
  const [slug, setSlug] = useState("");
  const [name, setName] = useState(provider?.name ?? "");
  const [kind, setKind] = useState<ProviderKind>(provider?.kind ?? "openai-compatible");
  const [baseUrl, setBaseUrl] = useState(provider?.baseUrl ?? "");
  const [apiKey, setApiKey] = useState("");
  const [removeKey, setRemoveKey] = useState(false);
  const [chatModels, setChatModels] = useState(modelText(provider, "chat"));
  const [embeddingModels, setEmbeddingModels] = useState(modelText(provider, "embedding"));

  const saved = (result: ModelProvider) => {
    notifyDone(
      provider
        ? `${result.name} was saved.`
        : `${result.name} was added: its models are now in the agent editor's model list.`,
    );
    setSlug("");
    setName("");
    setBaseUrl("");
    setApiKey("");
    setChatModels("");
    setEmbeddingModels("");
    onDone();
  };
  const create = useMutation(trpc.modelProviders.create.mutationOptions({ onSuccess: saved }));
  const update = useMutation(trpc.modelProviders.update.mutationOptions({ onSuccess: saved }));
  const models = () => [
    ...modelList(chatModels, "chat"),
    ...(kind === "openai-compatible" ? modelList(embeddingModels, "embedding") : []),
  ];

  function submit(event: FormEvent) {
    event.preventDefault();
    if (provider) {
      update.mutate({
        providerId: provider.id,
        name: name || provider.slug,
        baseUrl: baseUrl || null,
        ...(removeKey ? { apiKey: null } : apiKey ? { apiKey } : {}),
        models: models(),
      });
    } else {
      create.mutate({
        slug,
        name: name || slug,
        kind,
        ...(baseUrl ? { baseUrl } : {}),
        ...(apiKey ? { apiKey } : {}),
        models: models(),
      });
    }
  }

  const heading = provider ? `Edit ${provider.name}` : "Add a provider";
  return (
    <Panel title={heading} label={heading} onSubmit={submit}>
      {provider ? (
        <p className="muted">
          Agents name its models <code>{provider.slug}/&lt;model id&gt;</code>; the slug and kind cannot change.
        </p>
      ) : (
        <div className="row">
          <SlugField
            value={slug}
            onChange={setSlug}
            hint="Agents name its models <slug>/<model id>, e.g. local/llama3.1"
            placeholder="e.g. local"
          />
          <FormField label="Kind">
            <Select
              value={kind}
              onChange={(e) => setKind(e.target.value as ProviderKind)}
              options={[
                { value: "openai-compatible", label: "OpenAI-compatible (Ollama, vLLM, OpenAI…)" },
                { value: "anthropic", label: "Anthropic" },
              ]}
            />
          </FormField>
        </div>
      )}
      <FormField label="Name" hint="Shown in the agent editor's model list">
        <input
          maxLength={MAX_NAME_CHARS}
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="e.g. Ollama on the GPU box"
        />
      </FormField>
      <EndpointUrlField
        label={kind === "anthropic" ? "Base URL (optional)" : "Base URL"}
        hint={
          kind === "anthropic"
            ? "Leave empty for Anthropic's own API"
            : "The address that serves /chat/completions, e.g. http://localhost:11434/v1 for Ollama"
        }
        required={kind === "openai-compatible"}
        value={baseUrl}
        onChange={setBaseUrl}
        placeholder="https://api.openai.com/v1"
      />
      <FormField label="API key" hint={keyHint(provider)}>
        <input
          type="password"
          autoComplete="off"
          maxLength={MAX_CREDENTIAL_CHARS}
          disabled={removeKey}
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
        />
      </FormField>
      {provider?.hasApiKey && (
        <label className="inline">
          <input type="checkbox" checked={removeKey} onChange={(e) => setRemoveKey(e.target.checked)} />
          Remove the stored key
        </label>
      )}
      <FormField label="Chat models" hint="Comma-separated model ids as the server names them, e.g. llama3.1, qwen2.5">
        <input
          maxLength={MAX_CREDENTIAL_CHARS}
          value={chatModels}
          onChange={(e) => setChatModels(e.target.value)}
          placeholder="gpt-4o-mini, gpt-4o"
        />
      </FormField>
      {kind === "openai-compatible" && (
        <FormField
          label="Embedding models"
          hint="Optional, comma-separated. The organization's first embedding model also ranks knowledge search by meaning"
        >
          <input
            maxLength={MAX_CREDENTIAL_CHARS}
            value={embeddingModels}
            onChange={(e) => setEmbeddingModels(e.target.value)}
            placeholder="text-embedding-3-small"
          />
        </FormField>
      )}
      <ErrorAlert error={create.error ?? update.error} />
      <div className="row">
        <Button variant="primary" type="submit" disabled={create.isPending || update.isPending}>
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
