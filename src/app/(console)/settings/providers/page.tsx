"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ConfirmButton, PageHeader } from "@/components/console";
import { errorMessage, useTRPC } from "@/lib/trpc";
import type { ProviderKind } from "@/schemas/integration";

/** "gpt-4o, llama3:8b" → chat models; the same for embedding models. */
function modelList(text: string, kind: "chat" | "embedding") {
  return text
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean)
    .map((id) => ({ id, kind }));
}

export default function ProvidersPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const providers = useQuery(trpc.modelProviders.list.queryOptions());
  const [slug, setSlug] = useState("");
  const [name, setName] = useState("");
  const [kind, setKind] = useState<ProviderKind>("openai-compatible");
  const [baseUrl, setBaseUrl] = useState("");
  const [apiKey, setApiKey] = useState("");
  const [chatModels, setChatModels] = useState("");
  const [embeddingModels, setEmbeddingModels] = useState("");

  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.modelProviders.list.queryKey() });
  const create = useMutation(
    trpc.modelProviders.create.mutationOptions({
      onSuccess: () => {
        setSlug("");
        setName("");
        setBaseUrl("");
        setApiKey("");
        setChatModels("");
        setEmbeddingModels("");
        void refresh();
      },
    }),
  );
  const remove = useMutation(trpc.modelProviders.remove.mutationOptions({ onSuccess: () => void refresh() }));

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({
      slug,
      name: name || slug,
      kind,
      ...(baseUrl ? { baseUrl } : {}),
      ...(apiKey ? { apiKey } : {}),
      models: [...modelList(chatModels, "chat"), ...modelList(embeddingModels, "embedding")],
    });
  }

  return (
    <>
      <PageHeader
        title="Model providers"
        description="Agents of this organization can use these providers' models as <slug>/<model id>. API keys are stored encrypted and never shown again."
      />
      <form className="panel form" onSubmit={submit} aria-label="Add a model provider">
        <h2 style={{ marginTop: 0 }}>Add a provider</h2>
        <label>
          Slug
          <input required maxLength={40} pattern="[a-z0-9][a-z0-9-]*" value={slug} onChange={(e) => setSlug(e.target.value)} placeholder="e.g. openai" />
        </label>
        <label>
          Name
          <input maxLength={200} value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. OpenAI" />
        </label>
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.target.value as ProviderKind)}>
            <option value="openai-compatible">OpenAI-compatible (OpenAI, Ollama, vLLM, LM Studio, OpenRouter…)</option>
            <option value="anthropic">Anthropic</option>
          </select>
        </label>
        <label>
          Base URL{kind === "anthropic" ? " (optional)" : ""}
          <input type="url" required={kind === "openai-compatible"} value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="https://api.openai.com/v1" />
        </label>
        <label>
          API key (optional; write-only)
          <input type="password" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} />
        </label>
        <label>
          Chat models (comma-separated)
          <input value={chatModels} onChange={(e) => setChatModels(e.target.value)} placeholder="gpt-4o-mini, gpt-4o" />
        </label>
        {kind === "openai-compatible" && (
          <label>
            Embedding models (comma-separated)
            <input value={embeddingModels} onChange={(e) => setEmbeddingModels(e.target.value)} placeholder="text-embedding-3-small" />
          </label>
        )}
        {create.error && (
          <p className="error" role="alert">
            {errorMessage(create.error)}
          </p>
        )}
        <button type="submit" disabled={create.isPending}>
          Add provider
        </button>
      </form>

      {providers.data?.length === 0 && <p className="muted">No providers yet: agents use the built-in model and the operator&apos;s default until you add one.</p>}
      {!!providers.data?.length && (
        <div className="table-scroll">
          <table aria-label="Model providers">
            <thead>
              <tr>
                <th>Slug</th>
                <th>Kind</th>
                <th>Base URL</th>
                <th>Key</th>
                <th>Models</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {providers.data?.map((provider) => (
                <tr key={provider.id}>
                  <td>{provider.slug}</td>
                  <td>{provider.kind}</td>
                  <td>{provider.baseUrl ?? "default"}</td>
                  <td>{provider.hasApiKey ? "stored" : "none"}</td>
                  <td>{provider.models.map((model) => `${provider.slug}/${model.id}${model.kind === "embedding" ? " (embedding)" : ""}`).join(", ")}</td>
                  <td>
                    <ConfirmButton
                      label="Remove"
                      title={`Remove the provider ${provider.slug}?`}
                      confirmLabel="Remove"
                      onConfirm={() => remove.mutate({ providerId: provider.id })}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {providers.error && (
        <p className="error" role="alert">
          {errorMessage(providers.error)}
        </p>
      )}
    </>
  );
}
