"use client";
// The Directory page's single sign-on panel: the organization's identity provider over OpenID
// Connect (issuer, client id, the secret written and never read back, member email domains),
// tested with discovery, or over SAML 2.0 (saml-panel.tsx); the protocol is chosen beside the title.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Suspense, useState, type FormEvent, type ReactNode } from "react";
import { Button, ConfirmButton, CopyButton, ErrorAlert, FormField, Panel, Select } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { domainList, SignInNameFields } from "./sign-in-name-fields";
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

function OidcPanel({ callbackUrl, switcher }: { callbackUrl: string; switcher: ReactNode }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const connection = useQuery(trpc.sso.get.queryOptions());
  const oidc = connection.data?.protocol === "oidc" ? connection.data : undefined;
  const [issuer, setIssuer] = useState("");
  const [clientId, setClientId] = useState("");
  const [clientSecret, setClientSecret] = useState("");
  const [domains, setDomains] = useState("");
  const [displayName, setDisplayName] = useState("");
  // The form follows the stored connection each time it is read again (after a save, too).
  const [formFrom, setFormFrom] = useState<typeof oidc>(undefined);
  if (oidc && oidc !== formFrom) {
    setFormFrom(oidc);
    setIssuer(oidc.issuer);
    setClientId(oidc.clientId ?? "");
    setDomains(oidc.domains.join(", "));
    setDisplayName(oidc.displayName);
  }
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.sso.get.queryKey() });
  const save = useMutation(trpc.sso.set.mutationOptions({ onSuccess: () => (setClientSecret(""), void refresh()) }));
  const remove = useMutation(trpc.sso.remove.mutationOptions({ onSuccess: () => void refresh() }));
  const test = useMutation(trpc.sso.test.mutationOptions());
  const failure = save.error ?? remove.error ?? test.error;

  function submit(event: FormEvent) {
    event.preventDefault();
    test.reset();
    save.mutate({
      issuer,
      clientId,
      ...(clientSecret ? { clientSecret } : {}),
      domains: domainList(domains),
      displayName,
    });
  }

  return (
    <Panel title="Single sign-on (OpenID Connect)" label="Single sign-on" actions={switcher} onSubmit={submit}>
      <p className="muted">
        Members sign in to the console, and end users to portals that allow it, with your identity provider. Register
        this redirect URI there:
      </p>
      <div className="row">
        <code className="secret" data-testid="oidc-redirect-uri">
          {callbackUrl}
        </code>
        <CopyButton text={callbackUrl} />
      </div>
      <FormField label="Issuer URL">
        <input
          required
          maxLength={MAX_URL_CHARS}
          value={issuer}
          onChange={(e) => setIssuer(e.target.value)}
          placeholder="https://login.microsoftonline.com/<tenant>/v2.0"
        />
      </FormField>
      <FormField label="Client id">
        <input required maxLength={MAX_LABEL_CHARS} value={clientId} onChange={(e) => setClientId(e.target.value)} />
      </FormField>
      <FormField label={`Client secret${oidc ? " (leave empty to keep the current one)" : ""}`}>
        <input
          type="password"
          autoComplete="off"
          maxLength={MAX_CLIENT_SECRET_CHARS}
          required={!oidc}
          value={clientSecret}
          onChange={(e) => setClientSecret(e.target.value)}
        />
      </FormField>
      <SignInNameFields
        domains={domains}
        onDomains={setDomains}
        displayName={displayName}
        onDisplayName={setDisplayName}
        domainsLabel="Member email domains (comma-separated)"
      />
      <ErrorAlert error={failure} />
      {test.data && (
        <div className="sso-test-result">
          <p role="status" data-testid="sso-test-ok">
            Connected: {test.data.issuer} answered discovery in {test.data.durationMs} ms.
          </p>
          <dl className="sso-test-facts">
            <dt>Discovery document</dt>
            <dd>{test.data.discoveryUrl}</dd>
            <dt>Sign-in page</dt>
            <dd>{test.data.endpoints.authorization ?? "none published"}</dd>
            <dt>Token endpoint</dt>
            <dd>{test.data.endpoints.token ?? "none published"}</dd>
            <dt>Signing keys</dt>
            <dd>
              {test.data.signingKeys.count !== null
                ? `${test.data.signingKeys.count} published at ${test.data.endpoints.jwks}`
                : `could not be read: ${test.data.signingKeys.error}`}
            </dd>
            <dt>Scopes offered</dt>
            <dd>{test.data.scopesSupported?.join(", ") ?? "not listed"}</dd>
            <dt>Redirect URI to register</dt>
            <dd>
              <code>{test.data.redirectUri}</code>
            </dd>
          </dl>
          <details>
            <summary>What the provider answered</summary>
            <pre className="sso-test-document">{test.data.document}</pre>
          </details>
          <p className="muted">The client secret is checked at the first sign-in, which the provider answers.</p>
        </div>
      )}
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
