// Single sign-on's connection (contract: "Single sign-on: OpenID Connect"): one identity provider
// per organization, for its members (console) and the end users of portals that allow it, over
// OpenID Connect (oidc.ts) or SAML (saml.ts); what either does once an email is verified is
// sso-sign-in.ts. The secret goes in sealed and is never read back.
import { publicOrigin } from "@/env";
import type { SetSsoConnectionInput } from "@/schemas/identity/sso";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError, invalidRequest } from "@/server/errors";
import { privateIntegrationUrlsAllowed, requireIntegrationUrl } from "@/server/integration-urls";
import { sealSecret } from "@/server/secret-box";
import { changesBetween, recorded, recordEvent, SECRET_CHANGED } from "../org/events";

export const OIDC_CALLBACK_PATH = "/auth/oidc/callback";

const MAX_DOMAINS = 50;
const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** What the console and CLI see of a connection: never the secret. */
export interface SsoConnectionView {
  id: string;
  protocol: "oidc" | "saml";
  /** OpenID Connect: the issuer URL; SAML: the identity provider's entity id. */
  issuer: string;
  clientId: string | null;
  /** SAML only (null for OpenID Connect). */
  saml: {
    ssoUrl: string;
    certificates: number;
    metadataUrl: string | null;
    /** When the metadata at metadataUrl was last read and taken (at save, then daily). */
    metadataReadAt: string | null;
    /** Why the last daily refresh failed, and when; null once one succeeds. */
    metadataRefresh: { error: string; failedAt: string } | null;
  } | null;
  domains: string[];
  displayName: string;
  createdAt: string;
  updatedAt: string;
}

export interface SsoConnectionRow {
  id: string;
  protocol: string;
  issuer: string;
  clientId: string | null;
  samlSsoUrl: string | null;
  samlCertificates: string[];
  samlMetadataUrl: string | null;
  samlMetadataReadAt: Date | null;
  samlMetadataError: string | null;
  samlMetadataFailedAt: Date | null;
  domains: string[];
  displayName: string;
  createdAt: Date;
  updatedAt: Date;
}

export function toView(row: SsoConnectionRow): SsoConnectionView {
  const saml = row.protocol === "saml";
  return {
    id: row.id,
    protocol: saml ? "saml" : "oidc",
    issuer: row.issuer,
    clientId: row.clientId,
    saml: saml
      ? {
          ssoUrl: row.samlSsoUrl ?? "",
          certificates: row.samlCertificates.length,
          metadataUrl: row.samlMetadataUrl,
          metadataReadAt: row.samlMetadataReadAt?.toISOString() ?? null,
          metadataRefresh:
            row.samlMetadataError !== null
              ? { error: row.samlMetadataError, failedAt: (row.samlMetadataFailedAt ?? row.updatedAt).toISOString() }
              : null,
        }
      : null,
    domains: row.domains,
    displayName: row.displayName,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The rows of a connection of the other protocol, cleared when an organization switches. */
export const NO_OIDC = { clientId: null, clientSecretCiphertext: null };
export const NO_SAML = {
  samlSsoUrl: null,
  samlCertificates: [] as string[],
  samlMetadataUrl: null,
  samlMetadataReadAt: null,
  samlMetadataError: null,
  samlMetadataFailedAt: null,
};

export function redirectUri(): string {
  return `${publicOrigin()}${OIDC_CALLBACK_PATH}`;
}

/** A sign-in refusal a person reads on the sign-in page. */
export function ssoRefusal(message: string): AppError {
  return new AppError("unauthorized", message);
}

async function checkIssuer(issuer: string): Promise<string> {
  const url = URL.canParse(issuer) ? new URL(issuer) : null;
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:"))
    throw invalidRequest([{ path: "issuer", message: "Must be an https URL" }]);
  if (url.protocol === "http:" && !privateIntegrationUrlsAllowed())
    throw invalidRequest([{ path: "issuer", message: "Must be an https URL" }]);
  await requireIntegrationUrl(url.href, "issuer");
  return url.href.replace(/\/$/, "");
}

export function normalizeDomains(domains: readonly string[]): string[] {
  const result = [...new Set(domains.map((domain) => domain.trim().toLowerCase()).filter(Boolean))];
  if (result.length > MAX_DOMAINS)
    throw invalidRequest([{ path: "domains", message: `At most ${MAX_DOMAINS} domains` }]);
  const bad = result.find((domain) => domain.length > 253 || !DOMAIN.test(domain));
  if (bad) throw invalidRequest([{ path: "domains", message: `${bad.slice(0, 100)} is not a domain name` }]);
  return result;
}

export const setSsoConnection = guarded(
  { may: "settings" },
  async function setSsoConnection(db: Db, actor: Actor, input: SetSsoConnectionInput): Promise<SsoConnectionView> {
    const issuer = await checkIssuer(input.issuer);
    if (!input.clientId.trim() || input.clientId.length > 500)
      throw invalidRequest([{ path: "clientId", message: "1 to 500 characters" }]);
    if (input.clientSecret !== undefined && (!input.clientSecret || input.clientSecret.length > 2_000))
      throw invalidRequest([{ path: "clientSecret", message: "1 to 2,000 characters" }]);
    const domains = normalizeDomains(input.domains ?? []);
    const displayName = (input.displayName ?? "").trim().slice(0, 100);
    const existing = await db.ssoConnection.findUnique({ where: { organizationId: actor.organizationId } });
    // A connection that was SAML has no secret to keep.
    if (existing?.protocol !== "oidc" && input.clientSecret === undefined)
      throw invalidRequest([{ path: "clientSecret", message: "Required" }]);
    await requireDomainsFree(db, actor.organizationId, domains);
    const secret =
      input.clientSecret === undefined
        ? {}
        : { clientSecretCiphertext: sealSecret(input.clientSecret, "clientSecret") };
    const upsert = (tx: Pick<Db, "ssoConnection">) =>
      tx.ssoConnection.upsert({
        where: { organizationId: actor.organizationId },
        create: {
          organizationId: actor.organizationId,
          issuer,
          clientId: input.clientId.trim(),
          domains,
          displayName,
          clientSecretCiphertext: secret.clientSecretCiphertext!,
        },
        update: {
          protocol: "oidc",
          issuer,
          clientId: input.clientId.trim(),
          domains,
          displayName,
          ...secret,
          ...NO_SAML,
        },
      });
    const row = await recorded(db, actor, upsert, (saved) => {
      const changes: Record<string, readonly [unknown, unknown]> = existing
        ? changesBetween({ ...toView(existing) }, { ...toView(saved) }, [
            "protocol",
            "issuer",
            "clientId",
            "domains",
            "displayName",
          ])
        : {};
      return {
        action: existing ? "sso_connection.update" : "sso_connection.create",
        target: { type: "sso_connection", id: saved.id, label: saved.displayName || saved.issuer },
        changes:
          input.clientSecret === undefined
            ? changes
            : { ...changes, clientSecret: [existing ? SECRET_CHANGED : null, SECRET_CHANGED] },
      };
    });
    return toView(row);
  },
);

/** A domain signs in members of one organization of the installation. */
export async function requireDomainsFree(db: Db, organizationId: string, domains: readonly string[]): Promise<void> {
  if (!domains.length) return;
  const taken = await db.ssoConnection.findFirst({
    where: { organizationId: { not: organizationId }, domains: { hasSome: [...domains] } },
    select: { domains: true },
  });
  if (taken)
    throw new AppError(
      "conflict",
      `Another organization signs in ${taken.domains.find((domain) => domains.includes(domain))} with its own identity provider.`,
    );
}

export const getSsoConnection = guarded(
  { may: "settings" },
  async function getSsoConnection(db: Db, actor: Actor): Promise<SsoConnectionView | null> {
    const row = await db.ssoConnection.findUnique({ where: { organizationId: actor.organizationId } });
    return row ? toView(row) : null;
  },
);

export const removeSsoConnection = guarded(
  { may: "settings" },
  async function removeSsoConnection(db: Db, actor: Actor): Promise<SsoConnectionView> {
    const row = await db.ssoConnection.findUnique({ where: { organizationId: actor.organizationId } });
    if (!row) throw new AppError("not_found", "This organization has no single sign-on connection.");
    await db.$transaction([
      db.ssoConnection.delete({ where: { id: row.id, organizationId: actor.organizationId } }),
      recordEvent(db, actor, {
        action: "sso_connection.delete",
        target: { type: "sso_connection", id: row.id, label: row.displayName || row.issuer },
      }),
    ]);
    return toView(row);
  },
);
