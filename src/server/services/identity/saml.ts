// Single sign-on with SAML 2.0 (contract: "Data rights, retention and members' second factor"),
// for organizations whose identity provider speaks only SAML: the same rules as OpenID Connect
// for members and end users (services/identity/sso-sign-in.ts signs the verified email in). @node-saml/node-saml
// builds the AuthnRequest and checks the signed assertion (signature against the connection's
// certificates, audience, NotBefore/NotOnOrAfter within the clock skew); we check the rest: the
// assertion's issuer, the Recipient and InResponseTo of its bearer confirmation, the response's
// Destination, and take the request's row in one statement, so a replayed response finds nothing.
// Every absolute URL comes from PUBLIC_ORIGIN, never from the request.
import { X509Certificate } from "node:crypto";
import { SAML, ValidateInResponseTo, type Profile } from "@node-saml/node-saml";
import { parseDomFromString, xpath } from "@node-saml/node-saml/lib/xml.js";
import { publicOrigin } from "@/env";
import type { Actor, RequestOrigin } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { hashSecret, randomToken } from "@/server/auth/secrets";
import type { Db } from "@/server/db";
import { AppError, invalidRequest } from "@/server/errors";
import { guardedFetch, privateIntegrationUrlsAllowed, requireIntegrationUrl } from "@/server/integration-urls";
import { changesBetween, recordEvent, recorded } from "../org/events";
import { normalizeEmail } from "./members";
import { NO_OIDC, normalizeDomains, requireDomainsFree, ssoRefusal, toView, type SsoConnectionView } from "./sso";
import { recordSsoTest, signInWithEmail, testStart, type SsoFinish, type SsoStart } from "./sso-sign-in";

export const SAML_ACS_PATH = "/auth/saml/acs";
/** The cookie that ties the identity provider's answer to the browser that asked (the request's ID). */
export const SAML_REQUEST_COOKIE = "atrium_saml_request";
/** How far the identity provider's clock may be from ours. */
export const SAML_CLOCK_SKEW_MS = 60_000;
const LOGIN_TTL_MS = 10 * 60_000;
const MAX_METADATA_BYTES = 1_000_000;
const MAX_CERTIFICATES = 5;
const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer";
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
const EMAIL_ATTRIBUTES = [
  "email",
  "mail",
  "emailaddress",
  "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
  "urn:oid:0.9.2342.19200300.100.1.3",
];
const NAME_ATTRIBUTES = [
  "name",
  "displayName",
  "http://schemas.microsoft.com/identity/claims/displayname",
  "urn:oid:2.16.840.1.113730.3.1.241",
];

export function samlAcsUrl(): string {
  return `${publicOrigin()}${SAML_ACS_PATH}`;
}

/** Our entity id, one per organization: an assertion for one organization is no good at another. */
export function samlEntityId(organizationId: string): string {
  return `${publicOrigin()}/auth/saml/metadata/${organizationId}`;
}

// ---------------------------------------------------------------------------------------------
// The connection

export interface SetSamlConnectionInput {
  /** Read the identity provider's settings from its metadata at this URL… */
  metadataUrl?: string;
  /** …or from this metadata document… */
  metadataXml?: string;
  /** …or as given. */
  entityId?: string;
  ssoUrl?: string;
  certificate?: string;
  domains?: string[];
  displayName?: string;
}

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

function samlFor(
  organizationId: string,
  connection: { samlSsoUrl: string | null; samlCertificates: string[] },
  requestId?: string,
): SAML {
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
  return samlFor(organization.id, { samlSsoUrl: null, samlCertificates: [] }).generateServiceProviderMetadata(null);
}

// ---------------------------------------------------------------------------------------------
// Signing in

/** Starts a sign-in: the identity provider's URL with our AuthnRequest, and its ID for the cookie. */
export async function startSamlSignIn(db: Db, start: SsoStart): Promise<{ url: string; requestId: string }> {
  const connection = await db.ssoConnection.findUnique({ where: { organizationId: start.organizationId } });
  if (!connection || connection.protocol !== "saml")
    throw ssoRefusal("SAML single sign-on is not set up for this organization.");
  // An xsd:ID must not start with a digit.
  const requestId = `_${randomToken().replace(/[^A-Za-z0-9]/g, "")}`;
  await db.$transaction([
    db.ssoLogin.deleteMany({ where: { expiresAt: { lt: new Date() } } }),
    db.ssoLogin.create({
      data: {
        state: hashSecret(requestId),
        protocol: "saml",
        organizationId: start.organizationId,
        kind: start.kind,
        portalId: start.kind === "end_user" ? start.portalId : null,
        memberId: start.kind === "test" ? start.memberId : null,
        expiresAt: new Date(Date.now() + LOGIN_TTL_MS),
      },
    }),
  ]);
  const url = await samlFor(start.organizationId, connection, requestId).getAuthorizeUrlAsync("", undefined, {});
  return { url, requestId };
}

/** The console's "Test connection": a sign-in whose answer is shown to this admin instead of signing in. */
export const startSamlTest = guarded({ may: "settings" }, async function startSamlTest(db: Db, actor: Actor): Promise<{
  url: string;
  requestId: string;
}> {
  return startSamlSignIn(db, testStart(actor));
});

/** What the identity provider sent, as read from the response (before or after it was verified). */
export interface SamlSent {
  issuer: string | null;
  destination: string | null;
  inResponseTo: string | null;
  audiences: string[];
  recipients: string[];
  notBefore: string | null;
  notOnOrAfter: string | null;
  nameId: string | null;
  nameIdFormat: string | null;
  attributes: Record<string, string[]>;
  signed: { response: boolean; assertion: boolean };
  email?: string | null;
  name?: string | null;
}

const MAX_SHOWN = 500;
const shown = (value: string | null | undefined) => (value == null ? null : value.slice(0, MAX_SHOWN));

function readSent(document: Document): SamlSent {
  const one = (path: string) => shown(xpath.selectAttributes(document, path)[0]?.value);
  const all = (path: string) => xpath.selectElements(document, path).map((element) => shown(element.textContent)!);
  const assertion = "/*[local-name()='Response']/*[local-name()='Assertion']";
  const attributes: Record<string, string[]> = {};
  for (const attribute of xpath.selectElements(document, `${assertion}//*[local-name()='Attribute']`).slice(0, 50))
    attributes[shown(attribute.getAttribute("Name")) ?? ""] = xpath
      .selectElements(attribute, "./*[local-name()='AttributeValue']")
      .slice(0, 20)
      .map((value) => shown(value.textContent)!);
  const nameId = xpath.selectElements(document, `${assertion}/*[local-name()='Subject']/*[local-name()='NameID']`)[0];
  const signature = (path: string) => xpath.selectElements(document, `${path}/*[local-name()='Signature']`).length > 0;
  return {
    issuer: all(`${assertion}/*[local-name()='Issuer']`)[0] ?? null,
    destination: one("/*[local-name()='Response']/@Destination"),
    inResponseTo: one("/*[local-name()='Response']/@InResponseTo"),
    audiences: all(`${assertion}/*[local-name()='Conditions']//*[local-name()='Audience']`),
    recipients: xpath
      .selectAttributes(document, `${assertion}//*[local-name()='SubjectConfirmationData']/@Recipient`)
      .map((attribute) => shown(attribute.value)!),
    notBefore: one(`${assertion}/*[local-name()='Conditions']/@NotBefore`),
    notOnOrAfter: one(`${assertion}/*[local-name()='Conditions']/@NotOnOrAfter`),
    nameId: shown(nameId?.textContent),
    nameIdFormat: shown(nameId?.getAttribute("Format")),
    attributes,
    signed: { response: signature("/*[local-name()='Response']"), assertion: signature(assertion) },
  };
}

function firstString(value: unknown): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" && first.trim() ? first.trim() : null;
}

/** The email and name of a verified profile, from the attributes identity providers send them in. */
function identityOf(profile: Profile): { email: string | null; name: string | null } {
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const lower = new Map(Object.entries(attributes).map(([key, value]) => [key.toLowerCase(), value]));
  const pick = (names: string[]) =>
    names.map((name) => firstString(lower.get(name.toLowerCase()))).find((value) => value !== null) ?? null;
  const email = pick(EMAIL_ATTRIBUTES) ?? (profile.nameIDFormat === EMAIL_FORMAT ? firstString(profile.nameID) : null);
  const given = pick(["givenName", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname"]);
  const family = pick(["sn", "surname", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname"]);
  const name = pick(NAME_ATTRIBUTES) ?? ([given, family].filter(Boolean).join(" ") || null);
  return { email: email && email.includes("@") ? normalizeEmail(email) : null, name };
}

type XmlNode = { $?: Record<string, string>; _?: string } & Record<string, unknown>;
const children = (node: XmlNode | undefined, name: string) => (node?.[name] as XmlNode[] | undefined) ?? [];

/** Why a SAML sign-in was refused: a stable word beside the message (`sso_reason` on the sign-in page). */
export type SamlRefusalReason =
  | "malformed"
  | "not_started"
  | "replayed"
  | "not_configured"
  | "unsigned"
  | "expired"
  | "audience"
  | "recipient"
  | "destination"
  | "issuer"
  | "in_response_to"
  | "unverified_email"
  | "not_allowed"
  | "invalid";

function samlRefusal(reason: SamlRefusalReason, message: string, portalSlug: string | null = null): AppError {
  return Object.assign(ssoRefusal(message), { reason, portalSlug });
}

/** The checks node-saml leaves to us, on the signed assertion it verified. */
function checkVerifiedAssertion(profile: Profile, issuer: string, requestId: string): void {
  const assertion = (profile.getAssertion?.() as { Assertion?: XmlNode } | undefined)?.Assertion;
  const assertionIssuer = children(assertion, "Issuer")[0];
  if ((assertionIssuer?._ ?? assertionIssuer) !== issuer)
    throw samlRefusal(
      "issuer",
      `The assertion was issued by another identity provider than this connection's (${issuer}).`,
    );
  const now = Date.now();
  const confirmations = children(children(assertion, "Subject")[0], "SubjectConfirmation")
    .filter((confirmation) => confirmation.$?.Method === BEARER)
    .map((confirmation) => children(confirmation, "SubjectConfirmationData")[0]?.$ ?? {});
  if (!confirmations.some((data) => data.Recipient === samlAcsUrl()))
    throw samlRefusal("recipient", `The assertion was meant for another recipient than ${samlAcsUrl()}.`);
  const usable = confirmations.find(
    (data) =>
      data.Recipient === samlAcsUrl() &&
      (!data.NotOnOrAfter || Date.parse(data.NotOnOrAfter) + SAML_CLOCK_SKEW_MS > now) &&
      (!data.NotBefore || Date.parse(data.NotBefore) - SAML_CLOCK_SKEW_MS <= now),
  );
  if (!usable) throw samlRefusal("expired", "The assertion has expired.");
  if (usable.InResponseTo !== requestId)
    throw samlRefusal("in_response_to", "The assertion does not answer the sign-in this browser started.");
}

/** Why node-saml refused, in words a person reads on the sign-in page. */
function refusalFrom(error: unknown): AppError {
  const message = error instanceof Error ? error.message : "";
  if (/signature/i.test(message))
    return samlRefusal("unsigned", "The identity provider's assertion is not signed with its certificate.");
  if (/expired|not yet valid/i.test(message))
    return samlRefusal("expired", "The assertion has expired or is not valid yet.");
  if (/audience/i.test(message))
    return samlRefusal("audience", "The assertion was meant for another service provider (audience).");
  return samlRefusal("invalid", `The identity provider's answer could not be verified (${message.slice(0, 200)}).`);
}

/**
 * Finishes a sign-in from the identity provider's POST to our ACS: the response must answer the
 * request this browser started (its cookie), be signed as the connection says and meant for us;
 * then the request's row is taken (once) and the email signs in as with OpenID Connect.
 */
export async function finishSamlSignIn(
  db: Db,
  samlResponse: string | null,
  requestCookie: string | undefined,
  origin?: Omit<RequestOrigin, "door">,
): Promise<SsoFinish> {
  if (!samlResponse) throw samlRefusal("malformed", "The identity provider sent no SAML response.");
  let document: Document;
  try {
    document = await parseDomFromString(Buffer.from(samlResponse, "base64").toString("utf8"));
  } catch {
    throw samlRefusal("malformed", "The identity provider's answer is not a SAML response.");
  }
  const sent = readSent(document);
  const requestId = sent.inResponseTo;
  if (!requestId || !requestCookie || requestId !== requestCookie)
    throw samlRefusal("not_started", "This sign-in was not started in this browser, or it has expired. Start again.");
  const login = await db.ssoLogin.findFirst({
    where: { state: hashSecret(requestId), protocol: "saml", expiresAt: { gt: new Date() } },
  });
  if (!login) throw samlRefusal("replayed", "This sign-in has already been used or has expired. Start again.");
  const portal = login.portalId
    ? await db.portal.findFirst({
        where: { id: login.portalId, organizationId: login.organizationId },
        select: { slug: true },
      })
    : null;
  const fail = (reason: SamlRefusalReason, message: string) => samlRefusal(reason, message, portal?.slug ?? null);

  let email: string;
  try {
    const connection = await db.ssoConnection.findUnique({ where: { organizationId: login.organizationId } });
    if (!connection || connection.protocol !== "saml")
      throw fail("not_configured", "SAML single sign-on is not set up for this organization.");
    if (sent.destination !== null && sent.destination !== samlAcsUrl())
      throw fail("destination", `The response was sent to another destination than ${samlAcsUrl()}.`);
    let profile: Profile | null;
    try {
      ({ profile } = await samlFor(login.organizationId, connection).validatePostResponseAsync({
        SAMLResponse: samlResponse,
      }));
    } catch (error) {
      throw Object.assign(refusalFrom(error), { portalSlug: portal?.slug ?? null });
    }
    if (!profile) throw fail("malformed", "The identity provider sent no assertion.");
    try {
      checkVerifiedAssertion(profile, connection.issuer, requestId);
    } catch (error) {
      throw Object.assign(error as AppError, { portalSlug: portal?.slug ?? null });
    }
    const identity = identityOf(profile);
    Object.assign(sent, identity);
    const address = identity.email;
    // SAML carries no email_verified: as for an OpenID provider that sends none (Entra ID), the
    // address must be in a domain the admin named for this connection.
    if (!address || !connection.domains.includes(address.split("@")[1] ?? ""))
      throw fail(
        "unverified_email",
        "The identity provider did not give a verified email address (one of this connection's domains).",
      );
    // Taken and deleted in one statement: of two posts of the same response, one finds it.
    const [taken] = await db.$queryRaw<{ state: string }[]>`
      delete from sso_logins where state = ${login.state} and protocol = 'saml' and expires_at > now()
      returning state`;
    if (!taken) throw fail("replayed", "This sign-in has already been used or has expired. Start again.");
    email = address;
  } catch (error) {
    if (login.kind !== "test") throw error;
    await recordSsoTest(db, login, "saml", false, (error as Error).message, sent);
    return { kind: "test", ok: false };
  }
  if (login.kind === "test") {
    await recordSsoTest(db, login, "saml", true, "The identity provider's answer was verified.", sent);
    return { kind: "test", ok: true };
  }
  return signInWithEmail(db, login, email, portal, origin, (message) => fail("not_allowed", message));
}
