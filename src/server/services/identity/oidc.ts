// Single sign-on with OpenID Connect (contract: "Single sign-on: OpenID Connect"). openid-client
// does discovery, PKCE, state, nonce and the ID token's checks (signature, iss, aud, exp): the
// signature against the keys the provider publishes at its jwks_uri, also for a token from the
// token endpoint, which openid-client would otherwise take on the word of TLS
// (enableNonRepudiationChecks). Every request to the issuer (the JWKS too) goes through the
// integration fetch, so an issuer gets the same address rules as model providers and MCP servers.
// The redirect URI comes from configuration (PUBLIC_ORIGIN), never from the request. A started
// sign-in is a row used once: a replayed callback finds nothing.
import type { Configuration, CustomFetch, DiscoveryRequestOptions } from "openid-client";
import type { Actor, RequestOrigin } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { hashSecret } from "@/server/auth/secrets";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { guardedFetch } from "@/server/integration-urls";
import type { SsoTestResult } from "@/schemas/identity/sso";
import { openSecret } from "@/server/secret-box";
import { normalizeEmail } from "./members";
import { redirectUri, ssoRefusal } from "./sso";
import { recordSsoTest, signInWithEmail, testStart, type SsoFinish, type SsoStart } from "./sso-sign-in";

/** The cookie that ties a callback to the browser that started the sign-in. */
export const OIDC_STATE_COOKIE = "atrium_oidc_state";
const LOGIN_TTL_MS = 10 * 60_000;
const DISCOVERY_TIMEOUT_SECONDS = 10;

interface ConnectionRow {
  organizationId: string;
  protocol: string;
  issuer: string;
  clientId: string | null;
  clientSecretCiphertext: string | null;
}

/** The OpenID client library, loaded on first use rather than by every server at start. */
function openIdClient() {
  return import("openid-client");
}

/** The provider's configuration by discovery, every request through the integration fetch. */
async function discover(connection: ConnectionRow): Promise<Configuration> {
  if (connection.protocol !== "oidc" || !connection.clientId || !connection.clientSecretCiphertext)
    throw ssoRefusal("This organization signs in with SAML, not OpenID Connect.");
  const oidc = await openIdClient();
  const options: DiscoveryRequestOptions = {
    [oidc.customFetch]: guardedFetch as CustomFetch,
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
  const oidc = await openIdClient();
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
  const oidc = await openIdClient();
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
