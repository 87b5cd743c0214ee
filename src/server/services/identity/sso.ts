// Single sign-on with OpenID Connect (contract: "Single sign-on: OpenID Connect"): one identity
// provider per organization, for its members (console) and the end users of portals that allow
// it. openid-client does discovery, PKCE, state, nonce and the ID token's checks (signature,
// iss, aud, exp): the signature against the keys the provider publishes at its jwks_uri, also
// for a token from the token endpoint, which openid-client would otherwise take on the word of
// TLS (enableNonRepudiationChecks). Every request to the issuer (the JWKS too) goes through the
// integration fetch, so an issuer gets the same address rules as model providers and MCP servers. The redirect URI comes from
// configuration (PUBLIC_ORIGIN), never from the request. A started sign-in is a row used once:
// a replayed callback finds nothing.
import * as oidc from "openid-client";
import { env, publicOrigin } from "@/env";
import type { Actor, EndUserActor, MemberActor, RequestOrigin } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { hashSecret, randomToken } from "@/server/auth/secrets";
import type { Db } from "@/server/db";
import { AppError, invalidRequest } from "@/server/errors";
import { guardedFetch, privateIntegrationUrlsAllowed, requireIntegrationUrl } from "@/server/integration-urls";
import type { SsoTestResult } from "@/schemas/identity/sso";
import { openSecret, sealSecret } from "@/server/secret-box";
import { startEndUserSession, type NewEndUserSession } from "../portal/end-user-sessions";
import { changesBetween, recorded, recordEvent, SECRET_CHANGED, type EventInput } from "../org/events";
import { normalizeEmail } from "./members";
import type { NewSession } from "./sessions";

export const OIDC_CALLBACK_PATH = "/auth/oidc/callback";
/** Where the console shows a "test connection" sign-in's result. */
export const SSO_TEST_RESULT_PAGE = "/directory?sso_test=1";
/** The cookie that ties a callback to the browser that started the sign-in. */
export const OIDC_STATE_COOKIE = "atrium_oidc_state";
const LOGIN_TTL_MS = 10 * 60_000;
const DISCOVERY_TIMEOUT_SECONDS = 10;
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

export interface SetSsoConnectionInput {
  issuer: string;
  clientId: string;
  /** Required for a new connection; kept when omitted on a change. */
  clientSecret?: string;
  domains?: string[];
  displayName?: string;
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

interface ConnectionRow {
  organizationId: string;
  protocol: string;
  issuer: string;
  clientId: string | null;
  clientSecretCiphertext: string | null;
}

/** The provider's configuration by discovery, every request through the integration fetch. */
async function discover(connection: ConnectionRow): Promise<oidc.Configuration> {
  if (connection.protocol !== "oidc" || !connection.clientId || !connection.clientSecretCiphertext)
    throw ssoRefusal("This organization signs in with SAML, not OpenID Connect.");
  const options: oidc.DiscoveryRequestOptions = {
    [oidc.customFetch]: guardedFetch as oidc.CustomFetch,
    timeout: DISCOVERY_TIMEOUT_SECONDS,
  };
  // A token endpoint's ID token is checked against the provider's published keys, like any other.
  options.execute = [oidc.enableNonRepudiationChecks];
  if (new URL(connection.issuer).protocol === "http:") options.execute.push(oidc.allowInsecureRequests);
  try {
    return await oidc.discovery(
      new URL(connection.issuer),
      connection.clientId,
      undefined,
      oidc.ClientSecretPost(openSecret(connection.clientSecretCiphertext)),
      options,
    );
  } catch (error) {
    throw ssoRefusal(
      `The identity provider at ${connection.issuer} could not be reached or described itself wrongly${error instanceof Error ? ` (${error.message.slice(0, 200)})` : ""}.`,
    );
  }
}

const DOCUMENT_CHARS = 8000;

/** The provider's signing keys (its JWKS), counted, or why they could not be read. */
async function signingKeys(jwksUri: string | undefined): Promise<SsoTestResult["signingKeys"]> {
  if (!jwksUri) return { count: null, error: "The provider publishes no jwks_uri." };
  try {
    const response = await guardedFetch(jwksUri, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_SECONDS * 1000) });
    if (!response.ok) return { count: null, error: `HTTP ${response.status} from ${jwksUri}` };
    const body = (await response.json()) as { keys?: unknown };
    return Array.isArray(body.keys)
      ? { count: body.keys.length, error: null }
      : { count: null, error: "The key set has no keys array." };
  } catch (error) {
    return { count: null, error: error instanceof Error ? error.message.slice(0, 200) : String(error) };
  }
}

/**
 * The console's test button: discovery works and names the same issuer; answers what the
 * provider said (its endpoints, scopes, signing keys and the document itself).
 */
export const testSsoConnection = guarded(
  { may: "settings" },
  async function testSsoConnection(db: Db, actor: Actor): Promise<SsoTestResult> {
    const row = await db.ssoConnection.findUnique({ where: { organizationId: actor.organizationId } });
    if (!row) throw new AppError("not_found", "This organization has no single sign-on connection.");
    const started = Date.now();
    const config = await discover(row);
    const durationMs = Date.now() - started;
    const metadata = config.serverMetadata();
    return {
      ok: true,
      issuer: metadata.issuer,
      discoveryUrl: `${row.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
      durationMs,
      endpoints: {
        authorization: metadata.authorization_endpoint ?? null,
        token: metadata.token_endpoint ?? null,
        userinfo: metadata.userinfo_endpoint ?? null,
        jwks: metadata.jwks_uri ?? null,
      },
      scopesSupported: metadata.scopes_supported ?? null,
      signingKeys: await signingKeys(metadata.jwks_uri),
      redirectUri: redirectUri(),
      document: JSON.stringify(metadata, null, 2).slice(0, DOCUMENT_CHARS),
    };
  },
);

export type SsoStart = { organizationId: string } & (
  | { kind: "member" }
  | { kind: "end_user"; portalId: string }
  // The console's "Test connection": the provider's answer is shown to this admin, nobody signs in.
  | { kind: "test"; memberId: string }
);

/** The console's "Test connection" over OpenID Connect: a sign-in whose claims are shown, not used. */
export const startOidcTest = guarded({ may: "settings" }, async function startOidcTest(db: Db, actor: Actor): Promise<{
  url: string;
  state: string;
}> {
  return startSsoSignIn(db, testStart(actor));
});

/** Starts a sign-in: the URL to send the browser to, and the state for its cookie. */
export async function startSsoSignIn(db: Db, start: SsoStart): Promise<{ url: string; state: string }> {
  const connection = await db.ssoConnection.findUnique({ where: { organizationId: start.organizationId } });
  if (!connection) throw ssoRefusal("Single sign-on is not set up for this organization.");
  const config = await discover(connection);
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  await db.$transaction([
    db.ssoLogin.deleteMany({ where: { expiresAt: { lt: new Date() } } }),
    db.ssoLogin.create({
      data: {
        state: hashSecret(state),
        organizationId: start.organizationId,
        kind: start.kind,
        portalId: start.kind === "end_user" ? start.portalId : null,
        memberId: start.kind === "test" ? start.memberId : null,
        codeVerifier,
        nonce,
        expiresAt: new Date(Date.now() + LOGIN_TTL_MS),
      },
    }),
  ]);
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(),
    scope: "openid email profile",
    response_type: "code",
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  return { url: url.href, state };
}

/** Which protocol the organization's connection speaks, if it has one. */
export async function ssoProtocol(db: Db, organizationId: string): Promise<string | null> {
  const row = await db.ssoConnection.findUnique({ where: { organizationId }, select: { protocol: true } });
  return row?.protocol ?? null;
}

/** The organization whose connection signs in members of this email's domain, if any. */
export async function organizationForMemberEmail(
  db: Db,
  email: string,
): Promise<{ organizationId: string; displayName: string } | null> {
  const domain = normalizeEmail(email).split("@")[1];
  if (!domain) return null;
  const row = await db.ssoConnection.findFirst({
    where: { domains: { has: domain } },
    select: { organizationId: true, displayName: true },
  });
  return row;
}

export type SsoFinish =
  | { kind: "member"; session: NewSession }
  | { kind: "end_user"; session: NewEndUserSession; portalSlug: string }
  | { kind: "test"; ok: boolean };

/** Where a refused callback sends the person back to, when it is known. */
export interface SsoFailure {
  error: AppError;
  portalSlug: string | null;
}

export const SAME_ANSWER = "This account cannot sign in here with single sign-on. Ask your administrator for access.";

/**
 * Finishes a sign-in from the provider's callback: the state must be the one this browser
 * started (its cookie) and still unused; the code is exchanged with PKCE and the ID token
 * checked; then the verified email names a member or an active end user of the organization.
 */
export async function finishSsoSignIn(
  db: Db,
  query: URLSearchParams,
  stateCookie: string | undefined,
  origin?: Omit<RequestOrigin, "door">,
): Promise<SsoFinish> {
  const state = query.get("state");
  if (!state || !stateCookie || state !== stateCookie)
    throw ssoRefusal("This sign-in was not started in this browser, or it has expired. Start again.");
  // Taken and deleted in one statement: of two callbacks with the same state, one finds it.
  const [login] = await db.$queryRaw<
    {
      organizationId: string;
      kind: string;
      portalId: string | null;
      memberId: string | null;
      codeVerifier: string;
      nonce: string;
    }[]
  >`
    delete from sso_logins where state = ${hashSecret(state)} and protocol = 'oidc' and expires_at > now()
    returning organization_id::text as "organizationId", kind, portal_id::text as "portalId",
      member_id::text as "memberId", code_verifier as "codeVerifier", nonce`;
  if (!login) throw ssoRefusal("This sign-in has already been used or has expired. Start again.");
  const portal = login.portalId
    ? await db.portal.findFirst({
        where: { id: login.portalId, organizationId: login.organizationId },
        select: { slug: true },
      })
    : null;
  const fail = (message: string) => Object.assign(ssoRefusal(message), { portalSlug: portal?.slug ?? null });
  let verified: { claims: Record<string, unknown>; email: string };
  try {
    verified = await verifiedClaims(db, login, query, state, fail);
  } catch (error) {
    if (login.kind !== "test") throw error;
    const sent = (error as { claims?: Record<string, unknown> }).claims ?? {};
    await recordSsoTest(db, login, "oidc", false, (error as Error).message, sent);
    return { kind: "test", ok: false };
  }
  if (login.kind === "test") {
    await recordSsoTest(db, login, "oidc", true, "The identity provider's answer was verified.", verified.claims);
    return { kind: "test", ok: true };
  }
  return signInWithEmail(db, login, verified.email, portal, origin, fail);
}

/** The callback's code exchanged and the ID token checked: its claims and the verified email. */
async function verifiedClaims(
  db: Db,
  login: { organizationId: string; codeVerifier: string; nonce: string },
  query: URLSearchParams,
  state: string,
  fail: (message: string) => AppError,
): Promise<{ claims: Record<string, unknown>; email: string }> {
  const providerError = query.get("error");
  if (providerError)
    throw fail(
      `The identity provider refused the sign-in: ${(query.get("error_description") ?? providerError).slice(0, 200)}.`,
    );
  const connection = await db.ssoConnection.findUnique({ where: { organizationId: login.organizationId } });
  if (!connection) throw fail("Single sign-on is not set up for this organization.");
  const config = await discover(connection);
  const callbackUrl = new URL(redirectUri());
  for (const [name, value] of query) callbackUrl.searchParams.append(name, value);
  let claims: Record<string, unknown>;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: login.codeVerifier,
      expectedState: state,
      expectedNonce: login.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims()!;
    // Providers that keep the email out of the ID token give it at the userinfo endpoint, for the same subject.
    claims =
      idToken.email !== undefined
        ? { ...idToken }
        : { ...(await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub)) };
  } catch (error) {
    throw fail(
      `The identity provider's answer could not be verified${error instanceof Error ? ` (${error.message.slice(0, 200)})` : ""}.`,
    );
  }
  const email = typeof claims.email === "string" ? normalizeEmail(claims.email) : null;
  // Verified: the provider says so, or (Entra ID sends no email_verified) the address is in a domain
  // the admin named for this connection, which the provider answers for.
  const vouched =
    claims.email_verified === undefined && email !== null && connection.domains.includes(email.split("@")[1] ?? "");
  if (!email || !(claims.email_verified === true || vouched))
    throw Object.assign(fail("The identity provider did not give a verified email address."), { claims });
  return { claims, email };
}

/** The sign-in a verified email leads to, for OpenID Connect and SAML alike. */
export async function signInWithEmail(
  db: Db,
  login: { organizationId: string; kind: string; portalId: string | null },
  email: string,
  portal: { slug: string } | null,
  origin: Omit<RequestOrigin, "door"> | undefined,
  fail: (message: string) => AppError,
): Promise<SsoFinish> {
  if (login.kind === "member") {
    const member = await db.member.findFirst({
      where: { organizationId: login.organizationId, removedAt: null, user: { email } },
      select: { id: true, role: true },
    });
    if (!member) throw fail(SAME_ANSWER);
    const actor: MemberActor = {
      kind: "member",
      organizationId: login.organizationId,
      member: { id: member.id, role: member.role, email },
      origin: origin && { ...origin, door: "console" },
    };
    const token = randomToken();
    const expiresAt = new Date(Date.now() + env().SESSION_TTL_HOURS * 3_600_000);
    await db.$transaction([
      db.session.create({ data: { tokenHash: hashSecret(token), memberId: member.id, expiresAt } }),
      recordEvent(db, actor, {
        action: "member.sign_in",
        target: { type: "member", id: member.id, label: email },
        changes: { method: [null, "sso"] },
      }),
    ]);
    return { kind: "member", session: { token, expiresAt } };
  }
  const endUser = await db.endUser.findFirst({
    where: { organizationId: login.organizationId, email, deletedAt: null },
    select: { id: true, email: true, fullName: true, revokedAt: true, suspendedAt: true },
  });
  if (!endUser || !portal) throw fail(SAME_ANSWER);
  const actor: EndUserActor = {
    kind: "end_user",
    organizationId: login.organizationId,
    endUser: { id: endUser.id, email: endUser.email, fullName: endUser.fullName },
    portalId: login.portalId!,
    origin: origin && { ...origin, door: "portal" },
  };
  const event: EventInput = {
    action: "end_user.sign_in",
    target: { type: "end_user", id: endUser.id, label: endUser.email },
    changes: { method: [null, "sso"] },
  };
  if (endUser.revokedAt || endUser.suspendedAt) {
    // A known person refused (revoked or suspended): logged, with the same answer as a stranger.
    await recordEvent(db, actor, { ...event, outcome: "failure" });
    throw fail(SAME_ANSWER);
  }
  const session = await startEndUserSession(
    db,
    { id: endUser.id, organizationId: login.organizationId },
    { authMethod: "sso", signInEvent: recordEvent(db, actor, event) },
  );
  return { kind: "end_user", session, portalSlug: portal.slug };
}

/** Keeps what the identity provider sent to a "test connection" sign-in, for the admin who ran it. */
export async function recordSsoTest(
  db: Db,
  login: { organizationId: string; memberId: string | null },
  protocol: "oidc" | "saml",
  ok: boolean,
  message: string,
  sent: object,
): Promise<void> {
  if (!login.memberId) return;
  await db.ssoTest.create({
    data: {
      organizationId: login.organizationId,
      memberId: login.memberId,
      protocol,
      ok,
      message: message.slice(0, 1_000),
      sent: JSON.parse(JSON.stringify(sent)),
    },
  });
}

export interface SsoTestView {
  protocol: string;
  ok: boolean;
  message: string;
  /** OpenID Connect: the claims; SAML: what the response held (services/identity/saml.ts, SamlSent). */
  sent: Record<string, unknown>;
  createdAt: string;
}

/** The last test this admin ran, within the hour. */
export const lastSsoTest = guarded(
  { may: "settings" },
  async function lastSsoTest(db: Db, actor: Actor): Promise<SsoTestView | null> {
    if (actor.kind !== "member") return null;
    const row = await db.ssoTest.findFirst({
      where: {
        organizationId: actor.organizationId,
        memberId: actor.member.id,
        createdAt: { gt: new Date(Date.now() - 3_600_000) },
      },
      orderBy: { createdAt: "desc" },
    });
    return row
      ? {
          protocol: row.protocol,
          ok: row.ok,
          message: row.message,
          sent: row.sent as Record<string, unknown>,
          createdAt: row.createdAt.toISOString(),
        }
      : null;
  },
);

/** The console's "Test connection" sign-in, for either protocol: where to send the admin's browser. */
export function testStart(actor: Actor): SsoStart {
  if (actor.kind !== "member") throw new AppError("forbidden_role", "Only a signed-in admin can test single sign-on.");
  return { organizationId: actor.organizationId, kind: "test", memberId: actor.member.id };
}
