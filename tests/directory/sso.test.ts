// Single sign-on with OpenID Connect against a real local provider (oidc-provider): portal end
// users and console members sign in through it; a wrong state, a replayed callback and an
// unknown email are refused with a readable message on the sign-in page.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  // The provider listens on 127.0.0.1 over http.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import { createOidcCallbackHandler, createOidcStartHandler } from "@/server/adapters/oidc";
import { readCookie } from "@/server/auth/cookies";
import { PORTAL_SESSION_COOKIE } from "@/server/auth/portal-cookie";
import { getDb } from "@/server/db";
import { endUserForSession } from "@/server/services/portal/end-user-sessions";
import { requestSignInCode } from "@/server/services/portal/portal-sign-in";
import { resolvePortal, updatePortal } from "@/server/services/portal/portals";
import { updateOrganization } from "@/server/services/org/organizations";
import { actorForSession } from "@/server/services/identity/sessions";
import { redirectUri, setSsoConnection } from "@/server/services/identity/sso";
import { CookieJar, signInAtProvider, startFakeOidc, type FakeOidc } from "../fake-oidc";
import {
  addPerson,
  api,
  newOrganization,
  signInCookie,
  trpc,
  trpcErrorCode,
  uniqueSuffix,
  type Tenant,
} from "../helpers";
import { newPortal } from "../provisioning-helpers";

const start = createOidcStartHandler({ db: getDb });
const callback = createOidcCallbackHandler({ db: getDb });
let provider: FakeOidc;

beforeAll(async () => {
  provider = await startFakeOidc(
    [{ client_id: "atrium", client_secret: "atrium-client-secret-value", redirect_uris: [redirectUri()] }],
    {
      ann: { email: "ann@contoso.example", email_verified: true },
      stranger: { email: "stranger@contoso.example", email_verified: true },
      unverified: { email: "ann@contoso.example", email_verified: false },
    },
  );
});
afterAll(async () => provider?.close());

async function connected(domain?: string): Promise<Tenant> {
  const tenant = await newOrganization();
  await setSsoConnection(getDb(), tenant.operator, {
    issuer: provider.issuer,
    clientId: "atrium",
    clientSecret: "atrium-client-secret-value",
    domains: domain ? [domain] : [],
    displayName: "Contoso",
  });
  return tenant;
}

async function ssoPortal(tenant: Tenant, signIn: "sso" | "both" = "both") {
  const portal = await newPortal(tenant.operator);
  await updatePortal(getDb(), tenant.operator, { id: portal.id, signIn });
  return portal;
}

/** Starts at Atrium, signs in at the provider as `login`, and answers the callback as Atrium does. */
async function signInThrough(startQuery: string, login: string, jar = new CookieJar()) {
  const started = await start(new Request(`http://localhost/auth/oidc/start?${startQuery}`));
  expect(started.status).toBe(303);
  jar.store(started);
  const callbackUrl = await signInAtProvider(started.headers.get("location")!, login, redirectUri(), jar);
  const finished = await callback(new Request(callbackUrl, { headers: { cookie: jar.header() } }));
  jar.store(finished);
  return { finished, callbackUrl, jar, location: new URL(finished.headers.get("location")!) };
}

describe("single sign-on for portal end users", () => {
  it("signs an active end user in to the portal: session cookie, authMethod sso", async () => {
    const tenant = await connected();
    const portal = await ssoPortal(tenant);
    const endUser = (
      await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: "ann@contoso.example" } })
    ).body.endUser;
    const publicPortal = await resolvePortal(getDb(), portal.slug);
    expect(publicPortal.signIn).toBe("both");

    const { finished, location, jar } = await signInThrough(`portal=${portal.slug}`, "ann");
    expect(finished.status).toBe(303);
    expect(location.pathname).toBe(`/p/${portal.slug}`);
    expect(location.search).toBe("");
    const token = jar.get(PORTAL_SESSION_COOKIE);
    expect(
      await endUserForSession(getDb(), token, { id: portal.id, organizationId: tenant.organization.id }),
    ).toMatchObject({ endUser: { id: endUser.id } });
    expect((await getDb().endUser.findUniqueOrThrow({ where: { id: endUser.id } })).authMethod).toBe("sso");
    const [signIn] = await getDb().auditEvent.findMany({
      where: { organizationId: tenant.organization.id, action: "end_user.sign_in" },
    });
    expect(signIn).toMatchObject({ actorType: "end_user", actorId: endUser.id, door: "portal", outcome: "success" });
  });

  it("logs a suspended or revoked end user's refused sign-in as a failure, with the stranger's answer", async () => {
    const tenant = await connected();
    const portal = await ssoPortal(tenant);
    const endUser = (
      await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: "ann@contoso.example" } })
    ).body.endUser;
    await api("POST", `/end-users/${endUser.id}/revoke`, { key: tenant.orgKey.secret });
    const { location, jar } = await signInThrough(`portal=${portal.slug}`, "ann");
    expect(location.searchParams.get("sso_error")).toMatch(/cannot sign in here/);
    expect(jar.get(PORTAL_SESSION_COOKIE)).toBeUndefined();
    const events = await getDb().auditEvent.findMany({
      where: { organizationId: tenant.organization.id, action: "end_user.sign_in" },
    });
    expect(events.map((event) => [event.actorId, event.door, event.outcome])).toEqual([
      [endUser.id, "portal", "failure"],
    ]);
  });

  it("refuses an address that is not an active end user, a replayed callback and a wrong state, each with a readable message", async () => {
    const tenant = await connected();
    const portal = await ssoPortal(tenant);
    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: "ann@contoso.example" } });

    const stranger = await signInThrough(`portal=${portal.slug}`, "stranger");
    expect(stranger.location.pathname).toBe(`/p/${portal.slug}/sign-in`);
    expect(stranger.location.searchParams.get("sso_error")).toMatch(/cannot sign in here/);
    expect(stranger.jar.get(PORTAL_SESSION_COOKIE)).toBeUndefined();

    const ann = await signInThrough(`portal=${portal.slug}`, "ann");
    expect(ann.jar.get(PORTAL_SESSION_COOKIE)).toBeDefined();
    const replayed = await callback(
      new Request(ann.callbackUrl, {
        headers: { cookie: `atrium_oidc_state=${new URL(ann.callbackUrl).searchParams.get("state")}` },
      }),
    );
    expect(new URL(replayed.headers.get("location")!).searchParams.get("sso_error")).toMatch(
      /already been used or has expired/,
    );
    expect(
      replayed.headers
        .getSetCookie()
        .some(
          (cookie) =>
            cookie.startsWith(`${PORTAL_SESSION_COOKIE}=`) && !cookie.startsWith(`${PORTAL_SESSION_COOKIE}=;`),
        ),
    ).toBe(false);

    // A callback in a browser that did not start the sign-in (login CSRF) is refused.
    const jar = new CookieJar();
    const started = await start(new Request(`http://localhost/auth/oidc/start?portal=${portal.slug}`));
    jar.store(started);
    const callbackUrl = await signInAtProvider(started.headers.get("location")!, "ann", redirectUri(), jar);
    const foreign = await callback(
      new Request(callbackUrl, { headers: { cookie: "atrium_oidc_state=another-state" } }),
    );
    const error = new URL(foreign.headers.get("location")!);
    expect(error.pathname).toBe("/sign-in");
    expect(error.searchParams.get("sso_error")).toMatch(/not started in this browser/);
  });

  it("refuses an email the provider has not verified", async () => {
    const tenant = await connected();
    const portal = await ssoPortal(tenant);
    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: "ann@contoso.example" } });
    const { location } = await signInThrough(`portal=${portal.slug}`, "unverified");
    expect(location.searchParams.get("sso_error")).toMatch(/verified email/);
  });

  it("keeps email codes out of a portal that signs in with SSO only, and SSO out of an email-code portal", async () => {
    const tenant = await connected();
    const ssoOnly = await ssoPortal(tenant, "sso");
    const resolved = await resolvePortal(getDb(), ssoOnly.slug);
    await expect(
      requestSignInCode(getDb(), { portal: resolved, email: "ann@contoso.example", clientAddress: "203.0.113.9" }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    const emailOnly = await newPortal(tenant.operator);
    const refused = await start(new Request(`http://localhost/auth/oidc/start?portal=${emailOnly.slug}`));
    expect(new URL(refused.headers.get("location")!).searchParams.get("sso_error")).toMatch(/email code/);
  });
});

describe("the ID token's signature", () => {
  it("refuses a token signed with a key the provider does not publish, for end users and members; nothing signed in", async () => {
    const domain = `forged-${uniqueSuffix()}.example`;
    const tenant = await newOrganization();
    const member = await addPerson(tenant.operator, "member", `ann@${domain}`);
    const impostor = await startFakeOidc(
      [{ client_id: "atrium", client_secret: "atrium-client-secret-value", redirect_uris: [redirectUri()] }],
      { ann: { email: `ann@${domain}`, email_verified: true } },
      { signsWithUnpublishedKey: true },
    );
    try {
      await setSsoConnection(getDb(), tenant.operator, {
        issuer: impostor.issuer,
        clientId: "atrium",
        clientSecret: "atrium-client-secret-value",
        domains: [domain],
      });
      const portal = await ssoPortal(tenant);
      await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: `ann@${domain}` } });

      const asEndUser = await signInThrough(`portal=${portal.slug}`, "ann");
      expect(asEndUser.location.pathname).toBe(`/p/${portal.slug}/sign-in`);
      expect(asEndUser.location.searchParams.get("sso_error")).toMatch(/could not be verified/);
      expect(asEndUser.jar.get(PORTAL_SESSION_COOKIE)).toBeUndefined();

      const asMember = await signInThrough(`email=${encodeURIComponent(`ann@${domain}`)}`, "ann");
      expect(asMember.location.pathname).toBe("/sign-in");
      expect(asMember.location.searchParams.get("sso_error")).toMatch(/could not be verified/);
      expect(asMember.jar.get("atrium_session")).toBeUndefined();

      expect(await getDb().session.count({ where: { memberId: member.member.id } })).toBe(0);
      expect(await getDb().endUserSession.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
      expect(
        await getDb().endUser.count({ where: { organizationId: tenant.organization.id, authMethod: "sso" } }),
      ).toBe(0);
      expect(
        await getDb().auditEvent.count({
          where: { organizationId: tenant.organization.id, action: { in: ["member.sign_in", "end_user.sign_in"] } },
        }),
      ).toBe(0);
    } finally {
      await impostor.close();
    }
  });
});

describe("single sign-on for console members", () => {
  it("signs in the member whose email the provider verified, found by the email's domain", async () => {
    const domain = `contoso-${uniqueSuffix()}.example`;
    const tenant = await connected(domain);
    const member = await addPerson(tenant.operator, "member", `ann@${domain}`);
    const local = await startFakeOidc(
      [{ client_id: "atrium", client_secret: "atrium-client-secret-value", redirect_uris: [redirectUri()] }],
      {
        ann: { email: `ann@${domain}`, email_verified: true },
        nobody: { email: `nobody@${domain}`, email_verified: true },
      },
    );
    try {
      await setSsoConnection(getDb(), tenant.operator, {
        issuer: local.issuer,
        clientId: "atrium",
        clientSecret: "atrium-client-secret-value",
        domains: [domain],
        displayName: "Contoso",
      });
      const { location, jar } = await signInThrough(`email=${encodeURIComponent(`ann@${domain}`)}`, "ann");
      expect(location.pathname).toBe("/");
      const actor = await actorForSession(
        getDb(),
        readCookie(`atrium_session=${jar.get("atrium_session")}`, "atrium_session"),
      );
      expect(actor).toMatchObject({
        kind: "member",
        organizationId: tenant.organization.id,
        member: { id: member.member.id },
      });
      const signIns = await getDb().auditEvent.findMany({
        where: { organizationId: tenant.organization.id, action: "member.sign_in" },
      });
      expect(signIns.map((event) => [event.actorId, event.door, event.outcome, event.changes])).toEqual([
        [member.member.id, "console", "success", { method: [null, "sso"] }],
      ]);

      // Nobody is created by sign-in: an address with no member is refused.
      const nobody = await signInThrough(`email=${encodeURIComponent(`nobody@${domain}`)}`, "nobody");
      expect(nobody.location.pathname).toBe("/sign-in");
      expect(nobody.location.searchParams.get("sso_error")).toMatch(/cannot sign in here/);
      expect(nobody.jar.get("atrium_session")).toBeUndefined();
    } finally {
      await local.close();
    }

    const unknownDomain = await start(
      new Request(`http://localhost/auth/oidc/start?email=someone%40elsewhere.example`),
    );
    expect(new URL(unknownDomain.headers.get("location")!).searchParams.get("sso_error")).toMatch(/No organization/);
  });

  it("keeps the client secret sealed, and refuses a domain another organization signs in", async () => {
    const domain = `fabrikam-${uniqueSuffix()}.example`;
    const tenant = await connected(domain);
    const row = await getDb().ssoConnection.findUniqueOrThrow({ where: { organizationId: tenant.organization.id } });
    expect(row.clientSecretCiphertext).not.toContain("atrium-client-secret-value");
    const other = await newOrganization();
    await expect(
      setSsoConnection(getDb(), other.operator, {
        issuer: provider.issuer,
        clientId: "x",
        clientSecret: "y",
        domains: [domain],
      }),
    ).rejects.toMatchObject({
      code: "conflict",
    });
  });
});

describe("the single sign-on connection in the console", () => {
  it("is set, tested, shown without its secret and removed by an admin; a member cannot", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const set = await trpc(
      "mutation",
      "sso.set",
      {
        issuer: provider.issuer,
        clientId: "atrium",
        clientSecret: "atrium-client-secret-value",
        domains: [],
        displayName: "Contoso",
      },
      { cookie },
    );
    expect(set.body.result.data).toMatchObject({ issuer: provider.issuer, clientId: "atrium", displayName: "Contoso" });
    expect(JSON.stringify((await trpc("query", "sso.get", undefined, { cookie })).body)).not.toContain(
      "atrium-client-secret-value",
    );
    const tested = (await trpc("mutation", "sso.test", undefined, { cookie })).body.result.data;
    // What the provider answered: its endpoints, scopes and signing keys, and the document itself.
    expect(tested).toMatchObject({
      ok: true,
      issuer: provider.issuer,
      discoveryUrl: `${provider.issuer}/.well-known/openid-configuration`,
      endpoints: { authorization: expect.stringContaining(provider.issuer), jwks: expect.any(String) },
      signingKeys: { count: expect.any(Number), error: null },
      redirectUri: redirectUri(),
    });
    expect(tested.signingKeys.count).toBeGreaterThan(0);
    expect(tested.scopesSupported).toContain("openid");
    expect(JSON.parse(tested.document)).toMatchObject({ issuer: provider.issuer });
    const member = await addPerson(tenant.operator, "member");
    expect(
      trpcErrorCode(
        await trpc("query", "sso.get", undefined, { cookie: await signInCookie(member.email, member.password) }),
      ),
    ).toBe("forbidden_role");
    expect((await trpc("mutation", "sso.remove", undefined, { cookie })).status).toBe(200);
    expect((await trpc("query", "sso.get", undefined, { cookie })).body.result.data).toBeNull();
  });
});

describe("testing the connection", () => {
  it("sends an admin through the provider and shows its claims; nobody is signed in", async () => {
    const tenant = await connected();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const sessionsBefore = await getDb().session.count({ where: { memberId: tenant.owner.member.id } });
    const jar = new CookieJar();
    const started = await start(new Request("http://localhost/auth/oidc/start?test=1", { headers: { cookie } }));
    expect(started.status).toBe(303);
    jar.store(started);
    const callbackUrl = await signInAtProvider(started.headers.get("location")!, "ann", redirectUri(), jar);
    const finished = await callback(new Request(callbackUrl, { headers: { cookie: jar.header() } }));
    expect(new URL(finished.headers.get("location")!).pathname).toBe("/directory");
    expect(finished.headers.getSetCookie().some((line) => line.startsWith("atrium_session="))).toBe(false);
    expect((await trpc("query", "sso.lastTest", undefined, { cookie })).body.result.data).toMatchObject({
      protocol: "oidc",
      ok: true,
      sent: { email: "ann@contoso.example", email_verified: true, sub: "ann" },
    });
    expect(await getDb().session.count({ where: { memberId: tenant.owner.member.id } })).toBe(sessionsBefore);

    // Without a console session the test is refused before the provider is asked.
    const anonymous = await start(new Request("http://localhost/auth/oidc/start?test=1"));
    expect(new URL(anonymous.headers.get("location")!).searchParams.get("sso_error")).toMatch(/Sign in to the console/);
  });
});

describe("password sign-in off", () => {
  it("is an owner's choice once single sign-on is set up; then passwords are refused and the CLI's operator turns them back on", async () => {
    const domain = `tailspin-${uniqueSuffix()}.example`;
    const tenant = await newOrganization();
    const admin = await addPerson(tenant.operator, "admin");
    const owner = {
      kind: "member" as const,
      organizationId: tenant.organization.id,
      member: { id: tenant.owner.member.id, role: "owner" as const, email: tenant.owner.email },
    };
    await expect(updateOrganization(getDb(), owner, { passwordSignIn: false })).rejects.toMatchObject({
      code: "conflict",
    });
    await setSsoConnection(getDb(), tenant.operator, {
      issuer: provider.issuer,
      clientId: "atrium",
      clientSecret: "atrium-client-secret-value",
      domains: [domain],
    });
    const adminActor = {
      kind: "member" as const,
      organizationId: tenant.organization.id,
      member: { id: admin.member.id, role: "admin" as const, email: admin.email },
    };
    await expect(updateOrganization(getDb(), adminActor, { passwordSignIn: false })).rejects.toMatchObject({
      code: "forbidden_role",
    });
    expect((await updateOrganization(getDb(), owner, { passwordSignIn: false })).passwordSignIn).toBe(false);
    const refused = await trpc("mutation", "auth.signIn", {
      email: tenant.owner.email,
      password: tenant.owner.password,
    });
    expect(refused.body.error.message).toMatch(/single sign-on/);
    await updateOrganization(getDb(), tenant.operator, { passwordSignIn: true });
    expect(await signInCookie(tenant.owner.email, tenant.owner.password)).toMatch(/^atrium_session=/);
  });
});
