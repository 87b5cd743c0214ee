"use client";
// The Directory page's single sign-on panel: the organization's identity provider over OpenID
// Connect (issuer, client id, the secret written and never read back, member email domains),
// tested with discovery, or over SAML 2.0 (saml-panel.tsx); the protocol is chosen beside the title.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Suspense, useState, type ReactNode } from "react";
import {
  Button,
  ConfirmButton,
  CopyableValue,
  ErrorAlert,
  fieldProblem,
  FormField,
  Panel,
  Select,
  useZodForm,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { SetSsoConnectionInput, type SsoTestResult as DiscoveryAnswer } from "@/schemas/identity/sso";
import { connectionFieldOf, domainList, SignInNameFields } from "./sign-in-name-fields";
import { SamlPanel, SsoTestResult, type SamlServiceProvider } from "./saml-panel";
import { MAX_CLIENT_SECRET_CHARS, MAX_LABEL_CHARS, MAX_URL_CHARS } from "@/schemas/limits";

type Protocol = "oidc" | "saml";

export function SsoPanel({
  callbackUrl,
  serviceProvider,
}: {
  callbackUrl: string;
  serviceProvider: SamlServiceProvider;
}) {
  const trpc = useTRPC();
  const connection = useQuery(trpc.sso.get.queryOptions());
  const [chosen, setChosen] = useState<Protocol | null>(null);
  const protocol = chosen ?? connection.data?.protocol ?? "oidc";
  const switcher = <ProtocolSwitch value={protocol} onChange={setChosen} />;
  return (
    <>
      {protocol === "saml" ? (
        <SamlPanel serviceProvider={serviceProvider} switcher={switcher} />
      ) : (
        <OidcPanel callbackUrl={callbackUrl} switcher={switcher} />
      )}
      <Suspense fallback={null}>
        <SsoTestResult />
      </Suspense>
    </>
  );
}

function ProtocolSwitch({ value, onChange }: { value: Protocol; onChange: (protocol: Protocol) => void }) {
  return (
    <FormField label="Protocol">
      <Select
        value={value}
        onChange={(e) => onChange(e.target.value as Protocol)}
        options={[
          { value: "oidc", label: "OpenID Connect" },
          { value: "saml", label: "SAML 2.0" },
        ]}
      />
    </FormField>
  );
}

/** The OpenID Connect form as typed: the API's fields, the domains as comma-separated text. */
interface OidcFields {
  issuer: string;
  clientId: string;
  clientSecret: string;
  domains: string;
  displayName: string;
}
const OIDC_FIELDS: OidcFields = { issuer: "", clientId: "", clientSecret: "", domains: "", displayName: "" };

function OidcPanel({ callbackUrl, switcher }: { callbackUrl: string; switcher: ReactNode }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const connection = useQuery(trpc.sso.get.queryOptions());
  const oidc = connection.data?.protocol === "oidc" ? connection.data : undefined;
  // The form follows the stored connection each time it is read again (after a save, too).
  const form = useZodForm(SetSsoConnectionInput, {
    defaultValues: OIDC_FIELDS,
    values: oidc && {
      ...OIDC_FIELDS,
      issuer: oidc.issuer,
      clientId: oidc.clientId ?? "",
      domains: oidc.domains.join(", "),
      displayName: oidc.displayName,
    },
    asInput: ({ clientSecret, domains, ...fields }: OidcFields) => ({
      ...fields,
      ...(clientSecret ? { clientSecret } : {}),
      domains: domainList(domains),
    }),
    fieldOf: connectionFieldOf(Object.keys(OIDC_FIELDS) as (keyof OidcFields)[]),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.sso.get.queryKey() });
  const save = useMutation(
    trpc.sso.set.mutationOptions({ onSuccess: () => (form.resetField("clientSecret"), void refresh()) }),
  );
  const remove = useMutation(trpc.sso.remove.mutationOptions({ onSuccess: () => void refresh() }));
  const test = useMutation(trpc.sso.test.mutationOptions());
  const failure = fieldProblem(form, "root") ?? save.error ?? remove.error ?? test.error;

  const submit = form.handleSubmit((input) => {
    test.reset();
    save.mutate(input);
  });

  return (
    <Panel
      title="Single sign-on (OpenID Connect)"
      label="Single sign-on"
      actions={switcher}
      onSubmit={(event) => void submit(event)}
    >
      <p className="muted">
        Members sign in to the console, and end users to portals that allow it, with your identity provider. Register
        this redirect URI there:
      </p>
      <CopyableValue value={callbackUrl} testId="oidc-redirect-uri" />
      <FormField label="Issuer URL" error={fieldProblem(form, "issuer")}>
        <input
          required
          maxLength={MAX_URL_CHARS}
          placeholder="https://login.microsoftonline.com/<tenant>/v2.0"
          {...form.register("issuer")}
        />
      </FormField>
      <FormField label="Client id" error={fieldProblem(form, "clientId")}>
        <input required maxLength={MAX_LABEL_CHARS} {...form.register("clientId")} />
      </FormField>
      <FormField
        label={`Client secret${oidc ? " (leave empty to keep the current one)" : ""}`}
        error={fieldProblem(form, "clientSecret")}
      >
        <input
          type="password"
          autoComplete="off"
          maxLength={MAX_CLIENT_SECRET_CHARS}
          required={!oidc}
          {...form.register("clientSecret")}
        />
      </FormField>
      <SignInNameFields
        domains={form.register("domains")}
        displayName={form.register("displayName")}
        errors={{ domains: fieldProblem(form, "domains"), displayName: fieldProblem(form, "displayName") }}
        domainsLabel="Member email domains (comma-separated)"
      />
      <ErrorAlert error={failure} />
      {test.data && <DiscoveryResult result={test.data} />}
      <div className="row">
        <Button variant="primary" type="submit" disabled={save.isPending}>
          Save
        </Button>
        {oidc && (
          <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
            {test.isPending ? "Testing…" : "Test connection"}
          </button>
        )}
        {oidc && (
          // A sign-in at the provider whose claims are shown here, not used to sign in.
          <a className="button" href="/auth/oidc/start?test=1">
            Test sign-in
          </a>
        )}
        {connection.data && (
          <ConfirmButton
            label="Remove"
            title="Remove single sign-on?"
            description="Members and end users sign in with a password or an email code again."
            needs="settings"
            onConfirm={() => remove.mutate()}
          />
        )}
      </div>
    </Panel>
  );
}

/** What "Test connection" found at the provider: its discovery document and what it publishes. */
function DiscoveryResult({ result }: { result: DiscoveryAnswer }) {
  return (
    <div className="sso-test-result">
      <p role="status" data-testid="sso-test-ok">
        Connected: {result.issuer} answered discovery in {result.durationMs} ms.
      </p>
      <dl className="sso-test-facts">
        <dt>Discovery document</dt>
        <dd>{result.discoveryUrl}</dd>
        <dt>Sign-in page</dt>
        <dd>{result.endpoints.authorization ?? "none published"}</dd>
        <dt>Token endpoint</dt>
        <dd>{result.endpoints.token ?? "none published"}</dd>
        <dt>Signing keys</dt>
        <dd>
          {result.signingKeys.count !== null
            ? `${result.signingKeys.count} published at ${result.endpoints.jwks}`
            : `could not be read: ${result.signingKeys.error}`}
        </dd>
        <dt>Scopes offered</dt>
        <dd>{result.scopesSupported?.join(", ") ?? "not listed"}</dd>
        <dt>Redirect URI to register</dt>
        <dd>
          <code>{result.redirectUri}</code>
        </dd>
      </dl>
      <details>
        <summary>What the provider answered</summary>
        <pre className="sso-test-document">{result.document}</pre>
      </details>
      <p className="muted">The client secret is checked at the first sign-in, which the provider answers.</p>
    </div>
  );
}
