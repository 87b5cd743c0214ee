// Single sign-on with SAML 2.0 through the server `npm start` runs (the request listener, real
// HTTP): samlify plays the identity provider and signs real assertions with a real key. A signed
// assertion signs a member or a portal end user in; an unsigned, expired, replayed, foreign-signed
// or misaddressed one is refused with its reason on the sign-in page, and nothing is written.
import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  // The identity provider's metadata is served on 127.0.0.1 over http.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import { COMMANDS, parseFlags } from "@/cli/commands";
import { createRequestListener, guardServer } from "@/server/http/listener";
import { PORTAL_SESSION_COOKIE } from "@/server/auth/portal-cookie";
import { getDb } from "@/server/db";
import { endUserForSession } from "@/server/services/portal/end-user-sessions";
import { updatePortal } from "@/server/services/portal/portals";
import { actorForSession } from "@/server/services/identity/sessions";
import {
  refreshSamlMetadata,
  refreshSamlMetadataWhenDue,
  SAML_METADATA_REFRESH_EVERY_MS,
  samlAcsUrl,
  samlEntityId,
  setSamlConnection,
} from "@/server/services/identity/saml";
import { CookieJar } from "../fake-oidc";
import { IDP_CERTIFICATE, startFakeSamlIdp, type FakeSamlIdp, type SamlTweak } from "../fake-saml";
import { addPerson, api, newOrganization, signInCookie, trpc, uniqueSuffix, type Tenant } from "../helpers";
import { newPortal } from "../provisioning-helpers";

let server: http.Server;
let base: string;
let idp: FakeSamlIdp;

beforeAll(async () => {
  server = http.createServer(
    createRequestListener({ trustProxy: 0, fallback: (_m, response) => response.writeHead(404).end() }),
  );
  guardServer(server);
  // Longer than a test on a loaded machine: fetch reusing a connection the server has just closed
  // as idle (Node's 5 s default) reads ECONNRESET.
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  idp = await startFakeSamlIdp();
});

afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await idp?.close();
});

interface Connected {
  tenant: Tenant;
  domain: string;
  spMetadata: string;
  /** The identity provider it is connected to, when not the file's own. */
  provider?: FakeSamlIdp;
}

async function connected(): Promise<Connected> {
  const domain = `contoso-${uniqueSuffix()}.example`;
  const tenant = await newOrganization();
  await setSamlConnection(getDb(), tenant.operator, {
    metadataXml: idp.metadataXml,
    domains: [domain],
    displayName: "Contoso",
  });
  const metadata = await fetch(`${base}/auth/saml/metadata/${tenant.organization.id}`);
  expect(metadata.status).toBe(200);
  return { tenant, domain, spMetadata: await metadata.text() };
}

/** Starts at Atrium as a browser would, and brings back what the identity provider posts. */
async function throughIdp(
  connection: Connected,
  startPath: string,
  email: string,
  tweak?: SamlTweak,
  jar = new CookieJar(),
) {
  const started = await fetch(`${base}${startPath}`, { redirect: "manual", headers: { cookie: jar.header() } });
  expect(started.status).toBe(303);
  jar.store(started);
  const location = started.headers.get("location")!;
  const provider = connection.provider ?? idp;
  expect(location.startsWith(provider.ssoUrl)).toBe(true);
  const samlResponse = await provider.respond(location, connection.spMetadata, { email, name: "Ann Example" }, tweak);
  return { samlResponse, jar };
}

/** Posts as the identity provider's page does, with the browser's cookies (or the ones given). */
async function postToAcs(samlResponse: string, jar: CookieJar, cookie = jar.header()) {
  const response = await fetch(`${base}/auth/saml/acs`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: "" }),
  });
  jar.store(response);
  return { status: response.status, location: new URL(response.headers.get("location")!) };
}

async function signInAsMember(connection: Connected, email: string, tweak?: SamlTweak) {
  const { samlResponse, jar } = await throughIdp(
    connection,
    `/auth/saml/start?email=${encodeURIComponent(email)}`,
    email,
    tweak,
  );
  const cookie = jar.header();
  return { ...(await postToAcs(samlResponse, jar)), samlResponse, jar, cookie };
}

async function nothingWritten(tenant: Tenant): Promise<void> {
  const organizationId = tenant.organization.id;
  expect(await getDb().session.count({ where: { member: { organizationId } } })).toBe(0);
  expect(await getDb().endUserSession.count({ where: { organizationId } })).toBe(0);
  expect(
    await getDb().auditEvent.count({
      where: { organizationId, action: { in: ["member.sign_in", "end_user.sign_in"] } },
    }),
  ).toBe(0);
}

describe("SAML sign-in for console members", () => {
  it("signs in the member a signed assertion names, from the sign-in page's button; audited as sso", async () => {
    const connection = await connected();
    const member = await addPerson(connection.tenant.operator, "member", `ann@${connection.domain}`);
    // The console's "Continue with single sign-on" goes to /auth/oidc/start, which hands a SAML organization on.
    const { samlResponse, jar } = await throughIdp(
      connection,
      `/auth/oidc/start?email=${encodeURIComponent(`ann@${connection.domain}`)}`,
      `ann@${connection.domain}`,
    );
    const { status, location } = await postToAcs(samlResponse, jar);
    expect(status).toBe(303);
    expect(location.href).toBe(`${new URL(samlAcsUrl()).origin}/`);
    const actor = await actorForSession(getDb(), jar.get("atrium_session"));
    expect(actor).toMatchObject({ kind: "member", member: { id: member.member.id } });
    const events = await getDb().auditEvent.findMany({
      where: { organizationId: connection.tenant.organization.id, action: "member.sign_in" },
    });
    expect(events.map((event) => [event.actorId, event.door, event.outcome, event.changes])).toEqual([
      [member.member.id, "console", "success", { method: [null, "sso"] }],
    ]);
    // The owner's Security page names the connection and its protocol, and the sign-in's method.
    const owner = await signInCookie(connection.tenant.owner.email, connection.tenant.owner.password);
    const overview = (await trpc("query", "security.overview", undefined, { cookie: owner })).body.result.data;
    expect(overview.sso).toEqual({
      protocol: "saml",
      issuer: expect.any(String),
      displayName: "Contoso",
      domains: [connection.domain],
      metadataError: null,
    });
    expect(overview.recentSignIns.find((e: { email: string }) => e.email === `ann@${connection.domain}`)).toMatchObject(
      {
        method: "sso",
        outcome: "success",
      },
    );
  });

  it.each<[string, SamlTweak, string, RegExp]>([
    ["an unsigned response", { unsigned: true }, "unsigned", /not signed/],
    ["a signed response around an unsigned assertion", { responseSignedOnly: true }, "unsigned", /not signed/],
    ["an assertion signed with another key", { signedByImpostor: true }, "unsigned", /not signed/],
    ["an expired assertion", { validForMinutes: -10 }, "expired", /expired/],
    ["an assertion for another audience", { audience: "https://other.example/sp" }, "audience", /audience/],
    ["an assertion for another recipient", { recipient: "https://evil.example/acs" }, "recipient", /recipient/],
  ])("refuses %s: back to sign-in with its reason, nothing written", async (_name, tweak, reason, message) => {
    const connection = await connected();
    await addPerson(connection.tenant.operator, "member", `ann@${connection.domain}`);
    const refused = await signInAsMember(connection, `ann@${connection.domain}`, tweak);
    expect(refused.status).toBe(303);
    expect(refused.location.pathname).toBe("/sign-in");
    expect(refused.location.searchParams.get("sso_reason")).toBe(reason);
    expect(refused.location.searchParams.get("sso_error")).toMatch(message);
    expect(refused.jar.get("atrium_session")).toBeUndefined();
    await nothingWritten(connection.tenant);
  });

  it("refuses a replayed response, also two posts of it at once: one session", async () => {
    const connection = await connected();
    const member = await addPerson(connection.tenant.operator, "member", `ann@${connection.domain}`);
    const first = await signInAsMember(connection, `ann@${connection.domain}`);
    expect(first.location.pathname).toBe("/");
    // The same response with the same request cookie, as a thief of both would send it.
    const replayed = await postToAcs(first.samlResponse, new CookieJar(), first.cookie);
    expect(replayed.location.searchParams.get("sso_reason")).toBe("replayed");

    const { samlResponse, jar } = await throughIdp(
      connection,
      `/auth/saml/start?email=${encodeURIComponent(`ann@${connection.domain}`)}`,
      `ann@${connection.domain}`,
    );
    const twice = await Promise.all([postToAcs(samlResponse, jar), postToAcs(samlResponse, jar)]);
    expect(twice.map((answer) => answer.location.pathname).sort()).toEqual(["/", "/sign-in"]);
    expect(await getDb().session.count({ where: { memberId: member.member.id } })).toBe(2);
  });

  it("refuses a response this browser did not ask for, and an address outside the connection's domains", async () => {
    const connection = await connected();
    await addPerson(connection.tenant.operator, "member", `ann@${connection.domain}`);
    const { samlResponse } = await throughIdp(
      connection,
      `/auth/saml/start?email=${encodeURIComponent(`ann@${connection.domain}`)}`,
      `ann@${connection.domain}`,
    );
    const foreign = await postToAcs(samlResponse, new CookieJar());
    expect(foreign.location.searchParams.get("sso_reason")).toBe("not_started");

    const stranger = await throughIdp(
      connection,
      `/auth/saml/start?email=${encodeURIComponent(`ann@${connection.domain}`)}`,
      "ann@elsewhere.example",
    );
    const refused = await postToAcs(stranger.samlResponse, stranger.jar);
    expect(refused.location.searchParams.get("sso_reason")).toBe("unverified_email");
  });
});

describe("SAML sign-in for portal end users", () => {
  it("signs an active end user in to the portal; authMethod sso", async () => {
    const connection = await connected();
    const portal = await newPortal(connection.tenant.operator);
    await updatePortal(getDb(), connection.tenant.operator, { id: portal.id, signIn: "sso" });
    const email = `bo@${connection.domain}`;
    const endUser = (await api("POST", "/end-users", { key: connection.tenant.orgKey.secret, body: { email } })).body
      .endUser;
    // The portal's "Continue with Contoso" goes to /auth/oidc/start too.
    const { samlResponse, jar } = await throughIdp(connection, `/auth/oidc/start?portal=${portal.slug}`, email);
    const { location } = await postToAcs(samlResponse, jar);
    expect(location.pathname).toBe(`/p/${portal.slug}`);
    expect(
      await endUserForSession(getDb(), jar.get(PORTAL_SESSION_COOKIE), {
        id: portal.id,
        organizationId: connection.tenant.organization.id,
      }),
    ).toMatchObject({ endUser: { id: endUser.id } });
    expect((await getDb().endUser.findUniqueOrThrow({ where: { id: endUser.id } })).authMethod).toBe("sso");
  });

  it("sends a refused end user back to the portal's sign-in page with the reason", async () => {
    const connection = await connected();
    const portal = await newPortal(connection.tenant.operator);
    await updatePortal(getDb(), connection.tenant.operator, { id: portal.id, signIn: "both" });
    const email = `bo@${connection.domain}`;
    await api("POST", "/end-users", { key: connection.tenant.orgKey.secret, body: { email } });
    const { samlResponse, jar } = await throughIdp(connection, `/auth/saml/start?portal=${portal.slug}`, email, {
      validForMinutes: -10,
    });
    const { location } = await postToAcs(samlResponse, jar);
    expect(location.pathname).toBe(`/p/${portal.slug}/sign-in`);
    expect(location.searchParams.get("sso_reason")).toBe("expired");
    expect(jar.get(PORTAL_SESSION_COOKIE)).toBeUndefined();
    await nothingWritten(connection.tenant);
  });
});

describe("the SAML connection", () => {
  it("is read from the identity provider's metadata URL, or set by hand; our metadata names our entity id and ACS", async () => {
    const tenant = await newOrganization();
    const fromUrl = await setSamlConnection(getDb(), tenant.operator, { metadataUrl: idp.metadataUrl });
    expect(fromUrl).toMatchObject({
      protocol: "saml",
      issuer: idp.entityId,
      clientId: null,
      saml: { ssoUrl: idp.ssoUrl, certificates: 1, metadataUrl: idp.metadataUrl },
    });
    const byHand = await setSamlConnection(getDb(), tenant.operator, {
      entityId: idp.entityId,
      ssoUrl: idp.ssoUrl,
      certificate: IDP_CERTIFICATE,
    });
    expect(byHand.saml).toEqual({
      ssoUrl: idp.ssoUrl,
      certificates: 1,
      metadataUrl: null,
      metadataReadAt: null,
      metadataRefresh: null,
    });
    // A change by hand without a certificate keeps the one there is.
    const renamed = await setSamlConnection(getDb(), tenant.operator, {
      entityId: idp.entityId,
      ssoUrl: idp.ssoUrl,
      displayName: "Contoso",
    });
    expect(renamed).toMatchObject({ displayName: "Contoso", saml: { certificates: 1 } });
    await expect(
      setSamlConnection(getDb(), tenant.operator, { entityId: "x", ssoUrl: idp.ssoUrl, certificate: "not a cert" }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    // The operator's CLI sets the same, the certificate read from a PEM file.
    const certificateFile = path.join(os.tmpdir(), `saml-${uniqueSuffix()}.pem`);
    await writeFile(certificateFile, IDP_CERTIFICATE);
    const command = COMMANDS["sso set-saml"]!;
    const flags = parseFlags(command.flags, [
      ...["--org", tenant.organization.id, "--entity-id", idp.entityId, "--sso-url", idp.ssoUrl],
      ...["--certificate-file", certificateFile, "--domains", "cli.example", "--name", "From the CLI"],
    ]);
    expect(await command.run(getDb(), flags)).toMatchObject({
      ssoConnection: {
        protocol: "saml",
        displayName: "From the CLI",
        domains: ["cli.example"],
        saml: { certificates: 1 },
      },
    });

    const metadata = await (await fetch(`${base}/auth/saml/metadata/${tenant.organization.id}`)).text();
    expect(metadata).toContain(`entityID="${samlEntityId(tenant.organization.id)}"`);
    expect(metadata).toContain(`Location="${samlAcsUrl()}"`);
    expect(metadata).toContain('WantAssertionsSigned="true"');
    const unknown = await fetch(`${base}/auth/saml/metadata/00000000-0000-4000-8000-000000000000`);
    expect(unknown.status).toBe(404);
  });

  it("tests the connection for an admin: shows what the identity provider sent, signs nobody in", async () => {
    const connection = await connected();
    const cookie = await signInCookie(connection.tenant.owner.email, connection.tenant.owner.password);
    const signIns = () =>
      getDb().auditEvent.count({
        where: { organizationId: connection.tenant.organization.id, action: "member.sign_in" },
      });
    const signInsBefore = await signIns();
    const jar = new CookieJar();
    const email = `ann@${connection.domain}`;
    const started = await fetch(`${base}/auth/saml/start?test=1`, { redirect: "manual", headers: { cookie } });
    jar.store(started);
    const samlResponse = await idp.respond(started.headers.get("location")!, connection.spMetadata, {
      email,
      name: "Ann Example",
    });
    const { location } = await postToAcs(samlResponse, jar);
    expect(location.pathname).toBe("/directory");
    const result = (await trpc("query", "sso.lastTest", undefined, { cookie })).body.result.data;
    expect(result).toMatchObject({
      ok: true,
      protocol: "saml",
      sent: {
        issuer: idp.entityId,
        nameId: email,
        email,
        name: "Ann Example",
        audiences: [samlEntityId(connection.tenant.organization.id)],
        signed: { assertion: true },
      },
    });
    expect(await signIns()).toBe(signInsBefore);
    expect(jar.get("atrium_session")).toBeUndefined();
  });
});

describe("SAML metadata by URL, kept fresh", () => {
  it("takes a rotated signing certificate at the daily refresh, run once across processes; a failed one keeps the last good metadata and says why", async () => {
    const rotating = await startFakeSamlIdp();
    try {
      const domain = `contoso-${uniqueSuffix()}.example`;
      const tenant = await newOrganization();
      const saved = await setSamlConnection(getDb(), tenant.operator, {
        metadataUrl: rotating.metadataUrl,
        domains: [domain],
        displayName: "Contoso",
      });
      expect(saved.saml).toMatchObject({ metadataUrl: rotating.metadataUrl, metadataRefresh: null });
      const readAtSave = saved.saml!.metadataReadAt!;
      expect(Date.parse(readAtSave)).toBeGreaterThan(Date.now() - 60_000);
      const spMetadata = await (await fetch(`${base}/auth/saml/metadata/${tenant.organization.id}`)).text();
      const connection: Connected = { tenant, domain, spMetadata, provider: rotating };
      const ann = `ann@${domain}`;
      await addPerson(tenant.operator, "member", ann);
      const owner = await signInCookie(tenant.owner.email, tenant.owner.password);
      const ssoPage = async () => (await trpc("query", "sso.get", undefined, { cookie: owner })).body.result.data;

      // The provider rotates its signing key: its new signatures are refused until the metadata is read again.
      rotating.serveMetadata(rotating.rotatedMetadataXml);
      const beforeRefresh = await signInAsMember(connection, ann, { signedByImpostor: true });
      expect(beforeRefresh.location.pathname).toBe("/sign-in");

      // Due, and asked by two processes at once: one reads the metadata, the other finds it not due.
      const due = new Date(Date.now() + 365 * SAML_METADATA_REFRESH_EVERY_MS);
      const runs = await Promise.all([
        refreshSamlMetadataWhenDue(getDb(), due),
        refreshSamlMetadataWhenDue(getDb(), due),
      ]);
      expect(runs.filter((run) => run !== null)).toHaveLength(1);
      expect(runs.find((run) => run !== null)!.refreshed).toBeGreaterThanOrEqual(1);
      // Not due again the same day.
      expect(await refreshSamlMetadataWhenDue(getDb(), new Date(due.getTime() + 3_600_000))).toBeNull();

      const afterRefresh = await signInAsMember(connection, ann, { signedByImpostor: true });
      expect(afterRefresh.status).toBe(303);
      expect(afterRefresh.location.pathname).toBe("/");
      // The old key is no longer trusted.
      expect((await signInAsMember(connection, ann)).location.pathname).toBe("/sign-in");
      const refreshedView = await ssoPage();
      expect(Date.parse(refreshedView.saml.metadataReadAt)).toBeGreaterThan(Date.parse(readAtSave));
      const [event] = await getDb().auditEvent.findMany({
        where: { organizationId: tenant.organization.id, action: "sso_connection.metadata_refresh" },
      });
      expect(event).toMatchObject({ actorType: "system", targetType: "sso_connection" });
      const [was, now] = (event!.changes as { certificates: [string[], string[]] }).certificates;
      expect(was).toHaveLength(1);
      expect(now).toHaveLength(1);
      expect(now[0]).not.toBe(was[0]);

      // The provider's metadata fails: the connection keeps the last good one and the SSO page says why.
      rotating.serveMetadata(null);
      expect(await refreshSamlMetadata(getDb())).toMatchObject({ failed: expect.any(Number) });
      const failedView = await ssoPage();
      expect(failedView.saml).toMatchObject({
        certificates: 1,
        metadataReadAt: refreshedView.saml.metadataReadAt,
        metadataRefresh: { error: expect.stringMatching(/503/), failedAt: expect.any(String) },
      });
      expect((await signInAsMember(connection, ann, { signedByImpostor: true })).location.pathname).toBe("/");
      const security = (await trpc("query", "security.overview", undefined, { cookie: owner })).body.result.data;
      expect(security.sso.metadataError).toBe(failedView.saml.metadataRefresh.error);

      // Served again: the next refresh takes it and clears the failure.
      rotating.serveMetadata(rotating.rotatedMetadataXml);
      await refreshSamlMetadata(getDb());
      expect((await ssoPage()).saml.metadataRefresh).toBeNull();
      // Nothing changed this time, so nothing more is audited.
      expect(
        await getDb().auditEvent.count({
          where: { organizationId: tenant.organization.id, action: "sso_connection.metadata_refresh" },
        }),
      ).toBe(1);
    } finally {
      await rotating.close();
    }
  });
});
