"use client";
// Single sign-on over SAML 2.0: what to enter at the identity provider (our entity id, ACS URL and
// metadata), the provider by its metadata URL, its metadata document or its three settings, and a
// "Test sign-in" whose answer (what the provider sent) SsoTestResult shows afterwards.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import type { ReactNode } from "react";
import {
  Button,
  CopyableValue,
  ErrorAlert,
  fieldProblem,
  FormField,
  Panel,
  useZodForm,
  When,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { SetSamlConnectionInput } from "@/schemas/identity/sso";
import { connectionFieldOf, domainList, SignInNameFields } from "./sign-in-name-fields";
import { MAX_LABEL_CHARS, MAX_URL_CHARS } from "@/schemas/limits";
import { timeOrNever } from "@/lib/when";

export interface SamlServiceProvider {
  entityId: string;
  acsUrl: string;
  metadataUrl: string;
}

/** The SAML form as typed: the API's fields, the domains as comma-separated text. */
interface SamlFields {
  metadataUrl: string;
  metadataXml: string;
  entityId: string;
  ssoUrl: string;
  certificate: string;
  domains: string;
  displayName: string;
}
const SAML_FIELDS: SamlFields = {
  metadataUrl: "",
  metadataXml: "",
  entityId: "",
  ssoUrl: "",
  certificate: "",
  domains: "",
  displayName: "",
};

/** The provider by its metadata URL, else its metadata document, else its settings (a certificate if given). */
function samlInput(fields: SamlFields) {
  const source = fields.metadataUrl.trim()
    ? { metadataUrl: fields.metadataUrl }
    : fields.metadataXml.trim()
      ? { metadataXml: fields.metadataXml }
      : {
          entityId: fields.entityId,
          ssoUrl: fields.ssoUrl,
          ...(fields.certificate.trim() ? { certificate: fields.certificate } : {}),
        };
  return { ...source, domains: domainList(fields.domains), displayName: fields.displayName };
}

export function SamlPanel({
  serviceProvider,
  switcher,
}: {
  serviceProvider: SamlServiceProvider;
  switcher: ReactNode;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const connection = useQuery(trpc.sso.get.queryOptions());
  const saml = connection.data?.protocol === "saml" ? connection.data : undefined;
  // The form follows the stored connection each time it is read again (after a save, too).
  const form = useZodForm(SetSamlConnectionInput, {
    defaultValues: SAML_FIELDS,
    values: saml && {
      ...SAML_FIELDS,
      metadataUrl: saml.saml?.metadataUrl ?? "",
      entityId: saml.issuer,
      ssoUrl: saml.saml?.ssoUrl ?? "",
      domains: saml.domains.join(", "),
      displayName: saml.displayName,
    },
    asInput: samlInput,
    fieldOf: connectionFieldOf(Object.keys(SAML_FIELDS) as (keyof SamlFields)[]),
  });
  const save = useMutation(
    trpc.sso.setSaml.mutationOptions({
      onSuccess: () => {
        form.resetField("metadataXml");
        form.resetField("certificate");
        void queryClient.invalidateQueries({ queryKey: trpc.sso.get.queryKey() });
      },
    }),
  );
  const submit = form.handleSubmit((input) => save.mutate(input));
  const problem = (field: keyof SamlFields) => fieldProblem(form, field);

  return (
    <Panel
      title="Single sign-on (SAML 2.0)"
      label="Single sign-on"
      actions={switcher}
      onSubmit={(event) => void submit(event)}
    >
      <p className="muted">
        Create a SAML application at your identity provider with these values (or give it our metadata URL). It must
        sign its assertions and send the email address as the NameID or an <code>email</code> attribute.
      </p>
      <CopyableValue label="Entity ID (audience)" value={serviceProvider.entityId} testId="saml-entity-id" />
      <CopyableValue label="ACS URL (reply URL)" value={serviceProvider.acsUrl} testId="saml-acs-url" />
      <FormField
        label="Identity provider metadata URL"
        hint="Read when you save, then again every day: a new signing certificate there is taken on its own."
        error={problem("metadataUrl")}
      >
        <input
          type="url"
          maxLength={MAX_URL_CHARS}
          placeholder="https://login.microsoftonline.com/<tenant>/federationmetadata/2007-06/federationmetadata.xml?appid=…"
          {...form.register("metadataUrl")}
        />
      </FormField>
      <MetadataRefreshState saml={saml?.saml ?? null} />
      <details>
        <summary>Or paste the metadata, or enter the settings</summary>
        <FormField label="Metadata XML" error={problem("metadataXml")}>
          <textarea rows={4} {...form.register("metadataXml")} />
        </FormField>
        <FormField label="Identity provider entity ID (issuer)" error={problem("entityId")}>
          <input maxLength={MAX_LABEL_CHARS * 2} {...form.register("entityId")} />
        </FormField>
        <FormField label="Single sign-on URL (HTTP-Redirect)" error={problem("ssoUrl")}>
          <input type="url" maxLength={MAX_URL_CHARS} {...form.register("ssoUrl")} />
        </FormField>
        <FormField
          label={`Signing certificate (PEM)${saml ? ` (${saml.saml?.certificates ?? 0} kept; leave empty to keep them)` : ""}`}
          error={problem("certificate")}
        >
          <textarea rows={4} {...form.register("certificate")} />
        </FormField>
      </details>
      <SignInNameFields
        domains={form.register("domains")}
        displayName={form.register("displayName")}
        errors={{ domains: problem("domains"), displayName: problem("displayName") }}
        domainsLabel="Email domains (comma-separated)"
        domainsHint="Only addresses in these domains sign in."
      />
      <ErrorAlert error={fieldProblem(form, "root") ?? save.error} />
      <div className="row">
        <Button variant="primary" type="submit" disabled={save.isPending}>
          Save
        </Button>
        {saml && (
          // A sign-in at the identity provider whose answer is shown here, not used to sign in.
          <a className="button" href="/auth/saml/start?test=1">
            Test sign-in
          </a>
        )}
      </div>
    </Panel>
  );
}

/** What the identity provider sent to the last test sign-in, after coming back from it. */
export function SsoTestResult() {
  const trpc = useTRPC();
  const back = useSearchParams().get("sso_test") !== null;
  const result = useQuery({ ...trpc.sso.lastTest.queryOptions(), enabled: back });
  if (!back || !result.data) return null;
  const { ok, message, sent, createdAt } = result.data;
  return (
    <Panel title="Test sign-in: what the identity provider sent" testId="sso-test-result">
      <p role="status">
        {ok ? "Verified" : "Refused"}: {message}{" "}
        <span className="muted">
          (<When at={createdAt} />)
        </span>
      </p>
      <pre>{JSON.stringify(sent, null, 2)}</pre>
    </Panel>
  );
}

/** When the metadata at its URL was last taken, and why the last daily refresh failed if it did. */
function MetadataRefreshState({
  saml,
}: {
  saml: {
    metadataUrl: string | null;
    metadataReadAt: string | null;
    metadataRefresh: { error: string; failedAt: string } | null;
  } | null;
}) {
  if (!saml?.metadataUrl) return null;
  const readAt = timeOrNever(saml.metadataReadAt);
  if (!saml.metadataRefresh)
    return (
      <p className="muted" data-testid="saml-metadata-state">
        Metadata last read {readAt}.
      </p>
    );
  return (
    <ErrorAlert tone="warning" testId="saml-metadata-state">
      The metadata could not be read again (<When at={saml.metadataRefresh.failedAt} />
      ): {saml.metadataRefresh.error}. Sign-ins keep the settings read {readAt}.
    </ErrorAlert>
  );
}
