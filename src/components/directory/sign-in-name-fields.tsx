"use client";
// The two settings every single sign-on connection has, whatever its protocol: the email domains
// it signs in, and the name on its "Continue with …" button.
import { FormField } from "@/components/console";
import { MAX_DOMAIN_CHARS, MAX_SHORT_NAME_CHARS, MAX_SSO_DOMAINS } from "@/schemas/limits";

/** "contoso.com, fabrikam.com" as the connection's list of domains. */
export function domainList(text: string): string[] {
  return text
    .split(",")
    .map((domain) => domain.trim())
    .filter(Boolean);
}

export function SignInNameFields({
  domains,
  onDomains,
  displayName,
  onDisplayName,
  domainsLabel,
  domainsHint,
}: {
  domains: string;
  onDomains: (value: string) => void;
  displayName: string;
  onDisplayName: (value: string) => void;
  domainsLabel: string;
  domainsHint?: string;
}) {
  return (
    <>
      <FormField label={domainsLabel} hint={domainsHint}>
        <input
          maxLength={MAX_SSO_DOMAINS * (MAX_DOMAIN_CHARS + 2)}
          value={domains}
          onChange={(e) => onDomains(e.target.value)}
          placeholder="contoso.com"
        />
      </FormField>
      <FormField label="Button name (“Continue with …”)">
        <input
          maxLength={MAX_SHORT_NAME_CHARS}
          value={displayName}
          onChange={(e) => onDisplayName(e.target.value)}
          placeholder="Contoso"
        />
      </FormField>
    </>
  );
}
