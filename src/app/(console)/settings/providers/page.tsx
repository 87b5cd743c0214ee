"use client";
// Organization › Model providers (admins): the organization's own providers, added and edited with
// ProviderForm (the provider being edited lives in the URL), removed after a confirm.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  ConfirmButton,
  DataTable,
  EditButton,
  ErrorAlert,
  NAME_COLUMN,
  NameWithCode,
  notifyDone,
  PageHeader,
  Panel,
  urlStatePage,
  useUrlState,
} from "@/components/console";
import { ProviderForm } from "@/components/settings/provider-form";
import { useTRPC } from "@/lib/trpc";

const KINDS = { "openai-compatible": "OpenAI-compatible", anthropic: "Anthropic" } as const;

export default urlStatePage(Providers);

function Providers() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const url = useUrlState();
  const providers = useQuery(trpc.modelProviders.list.queryOptions());
  const editing = providers.data?.find((provider) => provider.slug === url.get("edit"));

  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.modelProviders.list.queryKey() });
  const remove = useMutation(
    trpc.modelProviders.remove.mutationOptions({
      onSuccess: (provider) => {
        notifyDone(`${provider.name} was removed.`);
        if (editing?.id === provider.id) url.show({});
        void refresh();
      },
    }),
  );
  const closeEditor = () => {
    url.show({});
    void refresh();
  };

  return (
    <>
      <PageHeader
        title="Model providers"
        description="Model servers this organization's agents can use besides the built-in offline model. Agents pick their models as <slug>/<model id>. API keys are stored encrypted and never shown again."
      />
      <ErrorAlert error={providers.error ?? remove.error} />
      {editing ? (
        <ProviderForm key={editing.id} provider={editing} onDone={closeEditor} />
      ) : (
        <ProviderForm onDone={() => void refresh()} />
      )}
      <Panel>
        <DataTable
          label="Model providers"
          rows={providers.data}
          rowTestId="provider-row"
          empty="No providers yet: agents use the built-in offline model (and the operator's default, if set) until you add one."
          columns={[
            {
              ...NAME_COLUMN,
              nowrap: true,
              cell: (provider) => (
                <NameWithCode name={provider.name} code={provider.slug}>
                  {" "}
                  · {KINDS[provider.kind]}
                </NameWithCode>
              ),
            },
            {
              key: "url",
              header: "Base URL",
              nowrap: true,
              cell: (provider) =>
                provider.baseUrl ? (
                  <code>{provider.baseUrl}</code>
                ) : (
                  <span className="muted">Anthropic&apos;s API</span>
                ),
            },
            {
              key: "key",
              header: "API key",
              nowrap: true,
              cell: (provider) => (provider.hasApiKey ? "stored" : <span className="muted">none</span>),
            },
            {
              key: "models",
              header: "Models",
              nowrap: true,
              cell: (provider) =>
                provider.models.map((model) => (
                  <div key={`${model.kind}:${model.id}`}>
                    <code>
                      {provider.slug}/{model.id}
                    </code>
                    {model.kind === "embedding" && <span className="muted"> (embedding, for knowledge search)</span>}
                  </div>
                )),
            },
            {
              key: "actions",
              header: <span className="visually-hidden">Actions</span>,
              nowrap: true,
              cell: (provider) => (
                <span className="row">
                  <EditButton editing={editing?.id === provider.id} onClick={() => url.show({ edit: provider.slug })} />
                  <ConfirmButton
                    label="Remove"
                    title={`Remove the provider ${provider.name}?`}
                    description="Agents on its models fall back to the built-in offline model until their drafts name another model."
                    onConfirm={() => remove.mutate({ providerId: provider.id })}
                  />
                </span>
              ),
            },
          ]}
        />
      </Panel>
    </>
  );
}
