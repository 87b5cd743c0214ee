"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import {
  Button,
  CheckboxGroup,
  ConfirmButton,
  NAME_COLUMN,
  SecretShownOnce,
  DataTable,
  ErrorAlert,
  FormActions,
  FormField,
  PageHeader,
  Panel,
  RadioGroup,
  fieldProblem,
  useFieldValue,
  useMay,
  useZodForm,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { CreateApiKeyInput } from "@/schemas/identity/api-key";
import { SCOPES } from "@/schemas/identity/auth";
import { MAX_SHORT_NAME_CHARS } from "@/schemas/limits";
import { timeOrNever } from "@/lib/when";

export default function KeysPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.apiKeys.list.queryOptions());
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
  const revoke = useMutation(trpc.apiKeys.revoke.mutationOptions({ onSuccess: () => void refresh() }));

  return (
    <>
      <PageHeader title="API keys" />
      {created && (
        <SecretShownOnce secret={created.secret} testId="new-key-secret" onDone={() => setCreated(null)}>
          <strong>{created.name}</strong> was created. Copy its secret now: it is shown only once and cannot be
          recovered.
        </SecretShownOnce>
      )}

      <CreateKeyPanel
        onCreated={(key) => {
          setCreated(key);
          void refresh();
        }}
      />

      <Panel title="Keys">
        {keys.isLoading && <p className="muted">Loading…</p>}
        <ErrorAlert error={keys.error} />
        <ErrorAlert error={revoke.error} />
        {/* On a phone each key is a card (console.css, .table-cards), each cell under its column's name. */}
        <DataTable
          label="Keys table"
          cards
          rows={keys.data}
          rowTestId="key-row"
          empty="No keys yet: create one above to call the REST API or connect an MCP client."
          columns={[
            { ...NAME_COLUMN, cell: (key) => <div className="cell-min-8">{key.name}</div> },
            {
              key: "kind",
              header: "Kind",
              sortValue: (key) => key.kind,
              cell: (key) => (
                <div className="cell-min-11">
                  {key.kind === "personal" ? "Personal" : "Organization"}
                  {key.memberEmail && <div className="muted">{key.memberEmail}</div>}
                </div>
              ),
            },
            { key: "prefix", header: "Prefix", nowrap: true, cell: (key) => <code>{key.prefix}…</code> },
            {
              key: "scopes",
              header: "Scopes",
              cell: (key) => (
                <span className="muted">
                  {key.scopes.length === SCOPES.length ? "all scopes" : key.scopes.join(", ")}
                </span>
              ),
            },
            {
              key: "lastUsed",
              header: "Last used",
              nowrap: true,
              sortValue: (key) => key.lastUsedAt ?? "",
              cell: (key) => <span className="muted">{timeOrNever(key.lastUsedAt)}</span>,
            },
            {
              key: "status",
              header: "Status",
              nowrap: true,
              cell: (key) =>
                key.revokedAt ? <span className="badge revoked">Revoked</span> : <span className="badge">Active</span>,
            },
            {
              key: "actions",
              header: "",
              cell: (key) =>
                !key.revokedAt && (
                  <ConfirmButton
                    label="Revoke"
                    title={`Revoke ${key.name}?`}
                    description="Anything using this key stops working at once."
                    confirmLabel="Revoke"
                    onConfirm={() => revoke.mutate({ keyId: key.id })}
                  />
                ),
            },
          ]}
        />
      </Panel>
    </>
  );
}

/** A new key: its name, personal or the organization's, and its scopes (all unless narrowed). */
function CreateKeyPanel({ onCreated }: { onCreated: (key: { name: string; secret: string }) => void }) {
  const trpc = useTRPC();
  const mayChangeSettings = useMay("settings");
  const form = useZodForm(CreateApiKeyInput, {
    defaultValues: { name: "", kind: "personal", scopes: [...SCOPES] },
  });
  const [kind, setKind] = useFieldValue(form, "kind");
  const [scopes, setScopes] = useFieldValue(form, "scopes");
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: (key) => {
        onCreated({ name: key.name, secret: key.secret });
        form.resetField("name");
      },
    }),
  );
  const submit = form.handleSubmit((input) => create.mutate(input));
  return (
    <Panel title="Create a key" label="Create an API key" onSubmit={(event) => void submit(event)}>
      <FormField label="Name" error={fieldProblem(form, "name")}>
        <input required maxLength={MAX_SHORT_NAME_CHARS} placeholder="e.g. CRM sync" {...form.register("name")} />
      </FormField>
      <RadioGroup
        legend="Kind"
        legendClassName="muted"
        listClassName="row"
        name="kind"
        choices={[
          { value: "personal", label: "Personal (acts as you, limited by your role)" },
          {
            value: "organization",
            label: `Organization${mayChangeSettings ? "" : " (admins only)"}`,
            disabled: !mayChangeSettings,
          },
        ]}
        value={kind}
        onChange={setKind}
      />
      <CheckboxGroup
        legend={
          <>
            Scopes{" "}
            <Button onClick={() => setScopes(scopes.length === SCOPES.length ? [] : [...SCOPES])}>
              {scopes.length === SCOPES.length ? "Clear all" : "Select all"}
            </Button>
          </>
        }
        legendClassName="muted"
        listClassName="scopes"
        choices={SCOPES.map((scope) => ({ value: scope, label: <code>{scope}</code> }))}
        value={scopes}
        onChange={setScopes}
      >
        {fieldProblem(form, "scopes") && <p className="field-error">{fieldProblem(form, "scopes")}</p>}
      </CheckboxGroup>
      <FormActions error={create.error} submitLabel="Create key" pending={create.isPending} />
    </Panel>
  );
}
