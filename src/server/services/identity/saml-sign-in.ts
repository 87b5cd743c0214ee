// Signing in with SAML 2.0: the same rules as OpenID Connect for members and end users
// (services/identity/sso-sign-in.ts signs the verified email in). @node-saml/node-saml builds the
// AuthnRequest and checks the signed assertion (signature against the connection's certificates,
// audience, NotBefore/NotOnOrAfter within the clock skew); we check the rest: the assertion's
// issuer, the Recipient and InResponseTo of its bearer confirmation, the response's Destination,
// and take the request's row in one statement, so a replayed response finds nothing.
import type { Profile } from "@node-saml/node-saml";
import type { Actor, RequestOrigin } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { hashSecret, randomToken } from "@/server/auth/secrets";
import type { Db } from "@/server/db";
import type { AppError } from "@/server/errors";
import { normalizeEmail } from "./members";
import { SAML_CLOCK_SKEW_MS, samlAcsUrl, samlFor, samlXml } from "./saml";
import { ssoRefusal } from "./sso";
import { recordSsoTest, signInWithEmail, testStart, type SsoFinish, type SsoStart } from "./sso-sign-in";

/** The cookie that ties the identity provider's answer to the browser that asked (the request's ID). */
export const SAML_REQUEST_COOKIE = "atrium_saml_request";

const LOGIN_TTL_MS = 10 * 60_000;

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
  const url = await (
    await samlFor(start.organizationId, connection, requestId)
  ).getAuthorizeUrlAsync("", undefined, {});
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

function readSent(document: Document, xpath: Awaited<ReturnType<typeof samlXml>>["xpath"]): SamlSent {
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
  const { parseDomFromString, xpath } = await samlXml();
  let document: Document;
  try {
    document = await parseDomFromString(Buffer.from(samlResponse, "base64").toString("utf8"));
  } catch {
    throw samlRefusal("malformed", "The identity provider's answer is not a SAML response.");
  }
  const sent = readSent(document, xpath);
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
      ({ profile } = await (
        await samlFor(login.organizationId, connection)
      ).validatePostResponseAsync({
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
