"use client";
// Single sign-on over SAML 2.0: what to enter at the identity provider (our entity id, ACS URL and
// metadata), the provider by its metadata URL, its metadata document or its three settings, and a
// "Test sign-in" whose answer (what the provider sent) SsoTestResult shows afterwards.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useState, type FormEvent, type ReactNode } from "react";
import { Button, CopyButton, ErrorAlert, FormField, Panel } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { domainList, SignInNameFields } from "./sign-in-name-fields";
import { MAX_LABEL_CHARS, MAX_URL_CHARS } from "@/schemas/limits";

export interface SamlServiceProvider {
  entityId: string;
  acsUrl: string;
  metadataUrl: string;
}

function Copyable({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="row">
      <span className="muted">{label}</span>
      <code className="secret" data-testid={testId}>
        {value}
      </code>
      <CopyButton text={value} />
    </div>
  );
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
  const [metadataUrl, setMetadataUrl] = useState("");
  const [metadataXml, setMetadataXml] = useState("");
  const [entityId, setEntityId] = useState("");
  const [ssoUrl, setSsoUrl] = useState("");
  const [certificate, setCertificate] = useState("");
  const [domains, setDomains] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [formFrom, setFormFrom] = useState<typeof saml>(undefined);
  if (saml && saml !== formFrom) {
    setFormFrom(saml);
    setMetadataUrl(saml.saml?.metadataUrl ?? "");
    setEntityId(saml.issuer);
    setSsoUrl(saml.saml?.ssoUrl ?? "");
    setDomains(saml.domains.join(", "));
    setDisplayName(saml.displayName);
  }
  const save = useMutation(
    trpc.sso.setSaml.mutationOptions({
      onSuccess: () => {
        setMetadataXml("");
        setCertificate("");
        void queryClient.invalidateQueries({ queryKey: trpc.sso.get.queryKey() });
      },
    }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    const source = metadataUrl.trim()
      ? { metadataUrl }
      : metadataXml.trim()
        ? { metadataXml }
        : { entityId, ssoUrl, ...(certificate.trim() ? { certificate } : {}) };
    save.mutate({
      ...source,
      domains: domainList(domains),
      displayName,
    });
  }

  return (
    <Panel title="Single sign-on (SAML 2.0)" label="Single sign-on" actions={switcher} onSubmit={submit}>
      <p className="muted">
        Create a SAML application at your identity provider with these values (or give it our metadata URL). It must
        sign its assertions and send the email address as the NameID or an <code>email</code> attribute.
      </p>
      <Copyable label="Entity ID (audience)" value={serviceProvider.entityId} testId="saml-entity-id" />
      <Copyable label="ACS URL (reply URL)" value={serviceProvider.acsUrl} testId="saml-acs-url" />
      <FormField
        label="Identity provider metadata URL"
        hint="Read when you save, then again every day: a new signing certificate there is taken on its own."
      >
        <input
          type="url"
          maxLength={MAX_URL_CHARS}
          value={metadataUrl}
          onChange={(e) => setMetadataUrl(e.target.value)}
          placeholder="https://login.microsoftonline.com/<tenant>/federationmetadata/2007-06/federationmetadata.xml?appid=…"
        />
      </FormField>
      <MetadataRefreshState saml={saml?.saml ?? null} />
      <details>
        <summary>Or paste the metadata, or enter the settings</summary>
        <FormField label="Metadata XML">
          <textarea rows={4} value={metadataXml} onChange={(e) => setMetadataXml(e.target.value)} />
        </FormField>
        <FormField label="Identity provider entity ID (issuer)">
          <input maxLength={MAX_LABEL_CHARS * 2} value={entityId} onChange={(e) => setEntityId(e.target.value)} />
        </FormField>
        <FormField label="Single sign-on URL (HTTP-Redirect)">
          <input type="url" maxLength={MAX_URL_CHARS} value={ssoUrl} onChange={(e) => setSsoUrl(e.target.value)} />
        </FormField>
        <FormField
          label={`Signing certificate (PEM)${saml ? ` (${saml.saml?.certificates ?? 0} kept; leave empty to keep them)` : ""}`}
        >
          <textarea rows={4} value={certificate} onChange={(e) => setCertificate(e.target.value)} />
        </FormField>
      </details>
      <SignInNameFields
        domains={domains}
        onDomains={setDomains}
        displayName={displayName}
        onDisplayName={setDisplayName}
        domainsLabel="Email domains (comma-separated)"
        domainsHint="Only addresses in these domains sign in."
      />
      <ErrorAlert error={save.error} />
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
        {ok ? "Verified" : "Refused"}: {message} <span className="muted">({new Date(createdAt).toLocaleString()})</span>
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
  const readAt = saml.metadataReadAt ? new Date(saml.metadataReadAt).toLocaleString() : "never";
  if (!saml.metadataRefresh)
    return (
      <p className="muted" data-testid="saml-metadata-state">
        Metadata last read {readAt}.
      </p>
    );
  return (
    <ErrorAlert tone="warning" testId="saml-metadata-state">
      The metadata could not be read again ({new Date(saml.metadataRefresh.failedAt).toLocaleString()}):{" "}
      {saml.metadataRefresh.error}. Sign-ins keep the settings read {readAt}.
    </ErrorAlert>
  );
}
