// Single sign-on with SAML 2.0 (contract: "Data rights, retention and members' second factor"),
// for organizations whose identity provider speaks only SAML: the connection (the identity
// provider's settings, given by hand or read from its metadata, and read again daily when given by
// URL) and our service provider's side of it. Signing in is saml-sign-in.ts. Every absolute URL
// comes from PUBLIC_ORIGIN, never from the request.
import { X509Certificate } from "node:crypto";
import type { SAML } from "@node-saml/node-saml";
import { publicOrigin } from "@/env";
import type { SetSamlConnectionInput } from "@/schemas/identity/sso";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError, invalidRequest } from "@/server/errors";
import { guardedFetch, privateIntegrationUrlsAllowed, requireIntegrationUrl } from "@/server/integration-urls";
import { changesBetween, recordEvent, recorded } from "../org/events";
import { NO_OIDC, normalizeDomains, requireDomainsFree, toView, type SsoConnectionView } from "./sso";

export const SAML_ACS_PATH = "/auth/saml/acs";

/** How far the identity provider's clock may be from ours. */
export const SAML_CLOCK_SKEW_MS = 60_000;

const MAX_METADATA_BYTES = 1_000_000;
const MAX_CERTIFICATES = 5;

export function samlAcsUrl(): string {
  return `${publicOrigin()}${SAML_ACS_PATH}`;
}

/** Our entity id, one per organization: an assertion for one organization is no good at another. */
export function samlEntityId(organizationId: string): string {
  return `${publicOrigin()}/auth/saml/metadata/${organizationId}`;
}

// ---------------------------------------------------------------------------------------------
// The connection

interface IdpSettings {
  entityId: string;
  ssoUrl: string;
  certificates: string[];
}

/** A certificate as base64 DER (what metadata and node-saml take), refused unless it parses. */
function certificateBody(text: string, path: string): string {
  const body = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");
  try {
    new X509Certificate(Buffer.from(body, "base64"));
  } catch {
    throw invalidRequest([{ path, message: "Not an X.509 certificate (PEM or base64)" }]);
  }
  return body;
}

async function settingsFromMetadata(xml: string, path: string): Promise<IdpSettings> {
  const refuse = (message: string) => invalidRequest([{ path, message }]);
  const { parseDomFromString, xpath } = await samlXml();
  let document: Document;
  try {
    document = await parseDomFromString(xml);
  } catch {
    throw refuse("Not an XML metadata document");
  }
  const [descriptor] = xpath.selectElements(
    document,
    "//*[local-name()='EntityDescriptor'][*[local-name()='IDPSSODescriptor']]",
  );
  if (!descriptor) throw refuse("No identity provider (IDPSSODescriptor) in this metadata");
  const entityId = descriptor.getAttribute("entityID") ?? "";
  const [sso] = xpath.selectElements(
    descriptor,
    "./*[local-name()='IDPSSODescriptor']/*[local-name()='SingleSignOnService'][@Binding='urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect']",
  );
  if (!sso) throw refuse("The identity provider offers no HTTP-Redirect SingleSignOnService");
  const certificates = xpath
    .selectElements(
      descriptor,
      "./*[local-name()='IDPSSODescriptor']/*[local-name()='KeyDescriptor'][not(@use) or @use='signing']//*[local-name()='X509Certificate']",
    )
    .map((element) => certificateBody(element.textContent ?? "", path));
  return { entityId, ssoUrl: sso.getAttribute("Location") ?? "", certificates };
}

async function fetchMetadata(url: string): Promise<string> {
  await checkBrowserUrl(url, "metadataUrl");
  await requireIntegrationUrl(url, "metadataUrl");
  let response: Response;
  try {
    response = await guardedFetch(url, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw invalidRequest([
      { path: "metadataUrl", message: `Could not be fetched${error instanceof Error ? ` (${error.message})` : ""}` },
    ]);
  }
  const text = await response.text();
  if (!response.ok || text.length > MAX_METADATA_BYTES)
    throw invalidRequest([{ path: "metadataUrl", message: `Answered ${response.status}, not a metadata document` }]);
  return text;
}

/** An https URL (http only where private integration URLs are allowed, as for issuers). */
async function checkBrowserUrl(value: string, path: string): Promise<string> {
  const url = URL.canParse(value) ? new URL(value) : null;
  const allowed = url?.protocol === "https:" || (url?.protocol === "http:" && privateIntegrationUrlsAllowed());
  if (!url || !allowed) throw invalidRequest([{ path, message: "Must be an https URL" }]);
  return url.href;
}

/** The provider's settings as a connection keeps them, refused unless usable. */
async function checkedSettings(given: IdpSettings): Promise<IdpSettings> {
  const entityId = given.entityId.trim();
  if (!entityId || entityId.length > 1_000)
    throw invalidRequest([{ path: "entityId", message: "1 to 1,000 characters" }]);
  const ssoUrl = await checkBrowserUrl(given.ssoUrl.trim(), "ssoUrl");
  if (!given.certificates.length || given.certificates.length > MAX_CERTIFICATES)
    throw invalidRequest([{ path: "certificate", message: `1 to ${MAX_CERTIFICATES} signing certificates` }]);
  return { entityId, ssoUrl, certificates: [...new Set(given.certificates)] };
}

export const setSamlConnection = guarded(
  { may: "settings" },
  async function setSamlConnection(db: Db, actor: Actor, input: SetSamlConnectionInput): Promise<SsoConnectionView> {
    const metadataUrl = input.metadataUrl?.trim() || null;
    const given =
      metadataUrl !== null
        ? await settingsFromMetadata(await fetchMetadata(metadataUrl), "metadataUrl")
        : input.metadataXml?.trim()
          ? await settingsFromMetadata(input.metadataXml, "metadataXml")
          : {
              entityId: input.entityId ?? "",
              ssoUrl: input.ssoUrl ?? "",
              certificates: input.certificate ? [certificateBody(input.certificate, "certificate")] : [],
            };
    const existing = await db.ssoConnection.findUnique({ where: { organizationId: actor.organizationId } });
    // Settings entered by hand without a certificate keep the connection's own.
    const byHand = metadataUrl === null && !input.metadataXml?.trim();
    if (byHand && !given.certificates.length && existing?.protocol === "saml")
      given.certificates = existing.samlCertificates;
    const { entityId, ssoUrl, certificates } = await checkedSettings(given);
    const domains = normalizeDomains(input.domains ?? []);
    await requireDomainsFree(db, actor.organizationId, domains);
    const displayName = (input.displayName ?? "").trim().slice(0, 100);
    const fields = {
      protocol: "saml",
      issuer: entityId,
      samlSsoUrl: ssoUrl,
      samlCertificates: certificates,
      samlMetadataUrl: metadataUrl,
      samlMetadataReadAt: metadataUrl === null ? null : new Date(),
      samlMetadataError: null,
      samlMetadataFailedAt: null,
      domains,
      displayName,
      ...NO_OIDC,
    };
    const row = await recorded(
      db,
      actor,
      (tx: Pick<Db, "ssoConnection">) =>
        tx.ssoConnection.upsert({
          where: { organizationId: actor.organizationId },
          create: { organizationId: actor.organizationId, ...fields },
          update: fields,
        }),
      (saved) => ({
        action: existing ? "sso_connection.update" : "sso_connection.create",
        target: { type: "sso_connection", id: saved.id, label: saved.displayName || saved.issuer },
        changes: existing
          ? changesBetween({ ...toView(existing) }, { ...toView(saved) }, [
              "protocol",
              "issuer",
              "saml",
              "domains",
              "displayName",
            ])
          : {},
      }),
    );
    return toView(row);
  },
);

// ---------------------------------------------------------------------------------------------
// Metadata by URL, kept fresh

/** How often a connection configured by metadata URL reads it again (src/server/jobs/webhook-delivery.ts asks). */
export const SAML_METADATA_REFRESH_EVERY_MS = 24 * 3_600_000;
const REFRESH_TASK = "saml_metadata_refresh";

export interface SamlMetadataRefresh {
  /** Connections whose metadata was read and taken (changed or not). */
  refreshed: number;
  /** Connections whose metadata could not be read or used: they keep their last good settings. */
  failed: number;
}

/** Certificates (base64 DER) by their SHA-256 fingerprints, as identity providers show them. */
function fingerprints(certificates: string[]): string[] {
  return certificates.map((body) => new X509Certificate(Buffer.from(body, "base64")).fingerprint256);
}

/** What a person reads about a failed refresh: the problem the metadata's checks named. */
function refreshProblem(error: unknown): string {
  const problems = error instanceof AppError ? (error.extra.problems as { message?: string }[] | undefined) : undefined;
  const text = problems?.[0]?.message ?? (error instanceof Error ? error.message : String(error));
  return text.slice(0, 500);
}

/**
 * Reads again the metadata of every SAML connection configured by URL and takes its settings, a
 * rotated signing certificate with them (audited as `sso_connection.metadata_refresh` when they
 * change). A metadata that cannot be fetched or used leaves the connection's last good settings
 * and records why, which the SSO page shows. Each write is conditional on the URL being the one
 * read, so an admin's save meanwhile wins.
 */
export async function refreshSamlMetadata(db: Db): Promise<SamlMetadataRefresh> {
  const result: SamlMetadataRefresh = { refreshed: 0, failed: 0 };
  const connections = await db.ssoConnection.findMany({
    where: { protocol: "saml", samlMetadataUrl: { not: null } },
    orderBy: { createdAt: "asc" },
  });
  for (const connection of connections) {
    const url = connection.samlMetadataUrl!;
    let settings: IdpSettings;
    try {
      settings = await checkedSettings(await settingsFromMetadata(await fetchMetadata(url), "metadataUrl"));
    } catch (error) {
      await db.ssoConnection.updateMany({
        where: { id: connection.id, organizationId: connection.organizationId, protocol: "saml", samlMetadataUrl: url },
        data: { samlMetadataError: refreshProblem(error), samlMetadataFailedAt: new Date() },
      });
      result.failed++;
      continue;
    }
    const changes = changesBetween(
      {
        issuer: connection.issuer,
        ssoUrl: connection.samlSsoUrl,
        certificates: [...connection.samlCertificates].sort(),
      },
      { issuer: settings.entityId, ssoUrl: settings.ssoUrl, certificates: [...settings.certificates].sort() },
      ["issuer", "ssoUrl", "certificates"],
    );
    await db.$transaction(async (tx) => {
      const updated = await tx.ssoConnection.updateMany({
        where: { id: connection.id, organizationId: connection.organizationId, protocol: "saml", samlMetadataUrl: url },
        data: {
          issuer: settings.entityId,
          samlSsoUrl: settings.ssoUrl,
          samlCertificates: settings.certificates,
          samlMetadataReadAt: new Date(),
          samlMetadataError: null,
          samlMetadataFailedAt: null,
        },
      });
      if (updated.count === 1 && Object.keys(changes).length > 0)
        await recordEvent(
          tx,
          { kind: "system", organizationId: connection.organizationId },
          {
            action: "sso_connection.metadata_refresh",
            target: { type: "sso_connection", id: connection.id, label: connection.displayName || settings.entityId },
            // Certificates are long: the audit log names them by their SHA-256 fingerprints.
            changes: {
              ...changes,
              ...(changes.certificates
                ? { certificates: [fingerprints(connection.samlCertificates), fingerprints(settings.certificates)] }
                : {}),
            },
          },
        );
    });
    result.refreshed++;
  }
  return result;
}

/**
 * The daily refresh: the caller that moves the task's next run on (scheduled_tasks, one
 * statement) refreshes; every other process asking meanwhile finds it not due and gets null.
 */
export async function refreshSamlMetadataWhenDue(db: Db, now = new Date()): Promise<SamlMetadataRefresh | null> {
  const next = new Date(now.getTime() + SAML_METADATA_REFRESH_EVERY_MS);
  const claimed = await db.$executeRaw`
    insert into scheduled_tasks (name, next_run_at) values (${REFRESH_TASK}, ${next})
    on conflict (name) do update set next_run_at = excluded.next_run_at where scheduled_tasks.next_run_at <= ${now}`;
  if (claimed !== 1) return null;
  return refreshSamlMetadata(db);
}

/**
 * The SAML library's XML reader, loaded on first use: with its XML stack it is over a megabyte
 * of code that a server whose organizations do not use SAML need not hold in memory.
 */
export function samlXml() {
  return import("@node-saml/node-saml/lib/xml.js");
}

export async function samlFor(
  organizationId: string,
  connection: { samlSsoUrl: string | null; samlCertificates: string[] },
  requestId?: string,
): Promise<SAML> {
  const { SAML, ValidateInResponseTo } = await import("@node-saml/node-saml");
  return new SAML({
    issuer: samlEntityId(organizationId),
    audience: samlEntityId(organizationId),
    callbackUrl: samlAcsUrl(),
    entryPoint: connection.samlSsoUrl ?? undefined,
    idpCert: connection.samlCertificates.length ? connection.samlCertificates : "-",
    // The assertion must be signed; the response around it may be too, but need not be.
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    // InResponseTo is checked here, against the request's row, taken once.
    validateInResponseTo: ValidateInResponseTo.never,
    signatureAlgorithm: "sha256",
    disableRequestedAuthnContext: true,
    generateUniqueId: requestId ? () => requestId : undefined,
  });
}

/** Our service provider metadata for an organization: entity id, ACS URL, signed assertions wanted. */
export async function samlMetadata(db: Db, organizationId: string): Promise<string> {
  const organization = await db.organization.findUnique({ where: { id: organizationId }, select: { id: true } });
  if (!organization) throw new AppError("not_found", "No organization with that id.");
  return (await samlFor(organization.id, { samlSsoUrl: null, samlCertificates: [] })).generateServiceProviderMetadata(
    null,
  );
}
