"use client";
// The two settings every single sign-on connection has, whatever its protocol: the email domains
// it signs in, and the name on its "Continue with …" button.
import type { UseFormRegisterReturn } from "react-hook-form";
import { FormField } from "@/components/console";
import { MAX_DOMAIN_CHARS, MAX_SHORT_NAME_CHARS, MAX_SSO_DOMAINS } from "@/schemas/limits";

/** "contoso.com, fabrikam.com" as the connection's list of domains. */
export function domainList(text: string): string[] {
  return text
    .split(",")
    .map((domain) => domain.trim())
    .filter(Boolean);
}

/** Where a problem of a connection's input shows: the form's field of that name, if it has one. */
export function connectionFieldOf<Field extends string>(fields: readonly Field[]) {
  return ([field]: readonly PropertyKey[]): Field | null =>
    typeof field === "string" && (fields as readonly string[]).includes(field) ? (field as Field) : null;
}

export function SignInNameFields({
  domains,
  displayName,
  errors,
  domainsLabel,
  domainsHint,
}: {
  /** The form's `register("domains")` (comma-separated text) and `register("displayName")`. */
  domains: UseFormRegisterReturn;
  displayName: UseFormRegisterReturn;
  errors: { domains: string | null; displayName: string | null };
  domainsLabel: string;
  domainsHint?: string;
}) {
  return (
    <>
      <FormField label={domainsLabel} hint={domainsHint} error={errors.domains}>
        <input maxLength={MAX_SSO_DOMAINS * (MAX_DOMAIN_CHARS + 2)} placeholder="contoso.com" {...domains} />
      </FormField>
      <FormField label="Button name (“Continue with …”)" error={errors.displayName}>
        <input maxLength={MAX_SHORT_NAME_CHARS} placeholder="Contoso" {...displayName} />
      </FormField>
    </>
  );
}
