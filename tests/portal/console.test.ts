// Admins configure portals (console and REST), read the outbox (console and CLI) and see the
// executions of end users.
import { execFile } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { addPerson, api, newOrganization, signInCookie, trpc, trpcErrorCode } from "../helpers";
import { clientAddress, codeFromOutbox, portalCall, portalScenario, signIn } from "./helpers";

const root = path.resolve(import.meta.dirname, "../..");

function cli(...args: string[]): Promise<{ code: number; json: any }> {
  return new Promise((resolve) => {
    execFile(
      path.join(root, "node_modules", ".bin", "tsx"),
      ["src/cli/admin.ts", ...args],
      { cwd: root, env: process.env, timeout: 30_000 },
      (error, stdout) => {
        resolve({ code: error ? Number(error.code ?? -1) : 0, json: JSON.parse(stdout) });
      },
    );
  });
}

describe("portals over REST", () => {
  it("POST /portals generates a unique slug from the name, or takes one; GET lists every field", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const first = await api("POST", "/portals", { key, body: { name: "Help Center" } });
    expect(first.status).toBe(201);
    const slug = first.body.portal.slug;
    expect(slug).toMatch(/^help-center(-\d+)?$/);
    const second = await api("POST", "/portals", { key, body: { name: "Help Center" } });
    expect(second.body.portal.slug).not.toBe(slug);
    expect(second.body.portal.slug).toMatch(/^help-center-\d+$/);

    const custom = await api("POST", "/portals", {
      key,
      body: {
        name: "Partners",
        slug: `Partners-${tenant.organization.id.slice(0, 8)}`,
        greeting: "Welcome, partners",
        logoUrl: "https://cdn.example/logo.png",
        accentColor: "#1A2B3C",
      },
    });
    expect(custom.status).toBe(201);
    expect(custom.body.portal).toEqual({
      id: expect.any(String),
      name: "Partners",
      slug: `partners-${tenant.organization.id.slice(0, 8)}`,
      greeting: "Welcome, partners",
      logoUrl: "https://cdn.example/logo.png",
      accentColor: "#1a2b3c",
      featuredAppIds: [],
      signIn: "email_code",
      defaultLanguage: "en",
      embed: { enabled: false, allowedOrigins: [], hasSecret: false },
      provisionPlanId: null,
      createdAt: expect.any(String),
    });
    const list = await api("GET", "/portals", { key });
    expect(list.body.portals.map((p: { name: string }) => p.name)).toEqual(["Help Center", "Help Center", "Partners"]);
    expect(Object.keys(list.body.portals[0]).sort()).toEqual([
      "accentColor",
      "createdAt",
      "defaultLanguage",
      "embed",
      "featuredAppIds",
      "greeting",
      "id",
      "logoUrl",
      "name",
      "provisionPlanId",
      "signIn",
      "slug",
    ]);
  });

  it("a slug another portal has (in any organization) is 409 conflict; bad slugs, URLs and colours are 400; nothing written", async () => {
    const tenant = await newOrganization();
    const other = await newOrganization();
    const taken = await api("POST", "/portals", {
      key: other.orgKey.secret,
      body: { name: "Taken", slug: `taken-${other.organization.id.slice(0, 8)}` },
    });
    const key = tenant.orgKey.secret;
    const conflict = await api("POST", "/portals", { key, body: { name: "Mine", slug: taken.body.portal.slug } });
    expect([conflict.status, conflict.body.error.code]).toEqual([409, "conflict"]);
    for (const body of [
      { name: "X", slug: "-bad" },
      { name: "X", slug: "a" },
      { name: "X", slug: "has space" },
      { name: "X", slug: "trpc" },
      { name: "X", logoUrl: "javascript:alert(1)" },
      { name: "X", accentColor: "red" },
      { name: "X", unknown: true },
    ]) {
      const response = await api("POST", "/portals", { key, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
    }
    expect(await getDb().portal.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });

  it("PATCH /portals/{id} changes only the fields passed; slug conflict 409; another organization's portal 404; admin only", async () => {
    const scenario = await portalScenario();
    const key = scenario.key;
    const patched = await api("PATCH", `/portals/${scenario.portal.id}`, {
      key,
      body: { greeting: "Hi there", accentColor: "#00aa00", featuredAppIds: [scenario.appId] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.portal).toMatchObject({
      name: "Help Center",
      slug: scenario.portal.slug,
      greeting: "Hi there",
      accentColor: "#00aa00",
      featuredAppIds: [scenario.appId],
      url: `/p/${scenario.portal.slug}`,
    });
    const cleared = await api("PATCH", `/portals/${scenario.portal.id}`, { key, body: { accentColor: null } });
    expect(cleared.body.portal.accentColor).toBeNull();
    expect(cleared.body.portal.greeting).toBe("Hi there");

    const otherPortal = await api("POST", "/portals", { key, body: { name: "Other" } });
    const conflict = await api("PATCH", `/portals/${otherPortal.body.portal.id}`, {
      key,
      body: { slug: scenario.portal.slug },
    });
    expect([conflict.status, conflict.body.error.code]).toEqual([409, "conflict"]);
    const unknownApp = await api("PATCH", `/portals/${scenario.portal.id}`, {
      key,
      body: { featuredAppIds: ["00000000-0000-4000-8000-000000000000"] },
    });
    expect(unknownApp.status).toBe(400);

    const elsewhere = await newOrganization();
    const foreign = await api("PATCH", `/portals/${scenario.portal.id}`, {
      key: elsewhere.orgKey.secret,
      body: { name: "Mine now" },
    });
    expect(foreign.status).toBe(404);
    const member = await addPerson(scenario.tenant.operator, "member");
    const { issueKey } = await import("../helpers");
    const memberKey = await issueKey(scenario.tenant.operator, { kind: "personal", memberId: member.member.id });
    const tooLow = await api("PATCH", `/portals/${scenario.portal.id}`, {
      key: memberKey.secret,
      body: { name: "Renamed" },
    });
    expect([tooLow.status, tooLow.body.error.code]).toEqual([403, "forbidden_role"]);
    expect((await getDb().portal.findUniqueOrThrow({ where: { id: scenario.portal.id } })).name).toBe("Help Center");

    // The portal shows its new look to visitors.
    const seen = await portalCall("query", "portal.get", { portal: scenario.portal.slug });
    expect(seen.body.result.data.portal).toMatchObject({ greeting: "Hi there", accentColor: null });
  });

  it("featured apps come first in the portal, in the portal's order", async () => {
    const scenario = await portalScenario();
    const { create, publish } = await import("../builder-helpers");
    const zulu = await create(scenario.key, "apps", {
      name: "Zulu desk",
      members: [{ id: scenario.supportAgentId, kind: "agent" }],
    });
    const alpha = await create(scenario.key, "apps", {
      name: "Alpha desk",
      members: [{ id: scenario.supportAgentId, kind: "agent" }],
    });
    for (const app of [zulu, alpha]) await publish(scenario.key, "apps", app.id);
    await api("POST", "/end-users", {
      key: scenario.key,
      body: {
        email: scenario.endUser.email,
        grants: [zulu, alpha].map((a) => ({ targetKind: "app", targetId: a.id })),
      },
    });
    const cookie = await signIn(scenario, scenario.endUser.email);
    const names = async () =>
      (await portalCall("query", "apps.list", { portal: scenario.portal.slug }, { cookie })).body.result.data.apps.map(
        (a: { name: string }) => a.name,
      );
    expect(await names()).toEqual(["Alpha desk", "Helpdesk", "Zulu desk"]);
    await api("PATCH", `/portals/${scenario.portal.id}`, {
      key: scenario.key,
      body: { featuredAppIds: [zulu.id, scenario.appId] },
    });
    expect(await names()).toEqual(["Zulu desk", "Helpdesk", "Alpha desk"]);
  });
});

describe("portals, outbox and executions in the console", () => {
  it("portals.get shows the link; portals.update is for admins", async () => {
    const scenario = await portalScenario();
    const owner = await signInCookie(scenario.tenant.owner.email, scenario.tenant.owner.password);
    const got = await trpc("query", "portals.get", { id: scenario.portal.id }, { cookie: owner });
    expect(got.body.result.data.portal).toMatchObject({
      id: scenario.portal.id,
      slug: scenario.portal.slug,
      url: `/p/${scenario.portal.slug}`,
    });
    const updated = await trpc(
      "mutation",
      "portals.update",
      { id: scenario.portal.id, name: "Help Centre", slug: `help-centre-${scenario.portal.id.slice(0, 6)}` },
      { cookie: owner },
    );
    expect(updated.status).toBe(200);
    expect(updated.body.result.data.portal.url).toBe(`/p/help-centre-${scenario.portal.id.slice(0, 6)}`);
    const member = await addPerson(scenario.tenant.operator, "member");
    const memberCookie = await signInCookie(member.email, member.password);
    const refused = await trpc(
      "mutation",
      "portals.update",
      { id: scenario.portal.id, name: "Nope" },
      { cookie: memberCookie },
    );
    expect(trpcErrorCode(refused)).toBe("forbidden_role");
  });

  it("mail.list shows the organization's outbox newest first, to admins only; the CLI prints it too", async () => {
    const scenario = await portalScenario();
    const from = clientAddress();
    await portalCall(
      "mutation",
      "auth.requestCode",
      { portal: scenario.portal.slug, email: scenario.endUser.email },
      { headers: from },
    );
    await portalCall(
      "mutation",
      "auth.requestCode",
      { portal: scenario.portal.slug, email: scenario.endUser.email },
      { headers: from },
    );
    const elsewhere = await portalScenario();
    await portalCall(
      "mutation",
      "auth.requestCode",
      { portal: elsewhere.portal.slug, email: elsewhere.endUser.email },
      { headers: from },
    );
    await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email, 2);
    await codeFromOutbox(elsewhere.tenant.organization.id, elsewhere.endUser.email, 1);

    const owner = await signInCookie(scenario.tenant.owner.email, scenario.tenant.owner.password);
    const page = await trpc("query", "mail.list", { limit: 1 }, { cookie: owner });
    expect(page.body.result.data.messages).toHaveLength(1);
    expect(page.body.result.data.messages[0]).toMatchObject({
      to: scenario.endUser.email,
      subject: expect.stringContaining("Help Center"),
    });
    const rest = await trpc(
      "query",
      "mail.list",
      { limit: 10, cursor: page.body.result.data.nextCursor },
      { cookie: owner },
    );
    expect(rest.body.result.data).toMatchObject({
      messages: [expect.objectContaining({ to: scenario.endUser.email })],
      nextCursor: null,
    });
    const all = await getDb().outboxMessage.findMany({
      where: { organizationId: scenario.tenant.organization.id },
      orderBy: { createdAt: "desc" },
    });
    expect([page.body.result.data.messages[0].id, rest.body.result.data.messages[0].id]).toEqual(all.map((m) => m.id));

    const viewer = await addPerson(scenario.tenant.operator, "member");
    const refused = await trpc("query", "mail.list", {}, { cookie: await signInCookie(viewer.email, viewer.password) });
    expect(trpcErrorCode(refused)).toBe("forbidden_role");

    const printed = await cli("mail", "list", "--org", scenario.tenant.organization.id);
    expect(printed.code).toBe(0);
    expect(printed.json.messages).toHaveLength(2);
    expect(Object.keys(printed.json.messages[0]).sort()).toEqual(["createdAt", "subject", "text", "to"]);
    expect(printed.json.messages[0].text).toMatch(/\b\d{6}\b/);
    expect(printed.json.messages.map((m: { createdAt: string }) => m.createdAt)).toEqual(
      all.map((m) => m.createdAt.toISOString()),
    );
    const unknown = await cli("mail", "list", "--org", "00000000-0000-4000-8000-000000000000");
    expect([unknown.code, unknown.json.error.code]).toEqual([1, "not_found"]);
  });

  it("the executions log filters by end user and portal and names them", async () => {
    const scenario = await portalScenario();
    await api("POST", `/apps/${scenario.appId}/conversation`, { key: scenario.key, body: { message: "Org run" } });
    await api("POST", `/apps/${scenario.appId}/conversation`, {
      key: scenario.key,
      body: { message: "Her run", endUserId: scenario.endUser.id, portalId: scenario.portal.id },
    });
    const owner = await signInCookie(scenario.tenant.owner.email, scenario.tenant.owner.password);
    const all = await trpc("query", "runtime.executions", { limit: 10 }, { cookie: owner });
    expect(all.body.result.data.executions).toHaveLength(2);
    expect(all.body.result.data.executions[0]).toMatchObject({
      endUserId: null,
      endUserEmail: null,
      portalId: null,
      portalName: null,
    });
    const hers = await trpc(
      "query",
      "runtime.executions",
      { limit: 10, endUserId: scenario.endUser.id },
      { cookie: owner },
    );
    expect(hers.body.result.data.executions).toEqual([
      expect.objectContaining({
        input: "Her run",
        endUserId: scenario.endUser.id,
        endUserEmail: scenario.endUser.email,
        portalId: scenario.portal.id,
        portalName: "Help Center",
      }),
    ]);
    const inPortal = await trpc(
      "query",
      "runtime.executions",
      { limit: 10, portalId: scenario.portal.id },
      { cookie: owner },
    );
    expect(inPortal.body.result.data.executions).toHaveLength(1);
  });
});
