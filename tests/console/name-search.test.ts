// The console's pickers search by name on the server (`q` on the lists of apps, agents, flows,
// knowledgebases, portals and user groups), so an organization with more than a page of them still finds one:
// case-insensitive, % and _ taken literally, bounded, and only the organization's own.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, expectError, newOrganization } from "../helpers";
import { create, draft, publish } from "../builder-helpers";
import { newGroup, newPortal } from "../provisioning-helpers";

const names = (rows: { name: string }[]) => rows.map((row) => row.name).sort();

describe("q on the lists", () => {
  it("finds an app by part of its name behind more than 200 others, drafts by the draft's name and published ones by the live name", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const first = await create(key, "apps", { name: "Helpdesk 0" });
    // Two hundred and more apps made straight in the table: the one sought is created last.
    const row = await getDb().builderItem.findUniqueOrThrow({ where: { id: first.id } });
    await getDb().builderItem.createMany({
      data: Array.from({ length: 210 }, (_, n) => ({
        organizationId: row.organizationId,
        kind: row.kind,
        draft: { ...(row.draft as object), name: `Helpdesk ${n + 1}` },
        lastChange: row.lastChange as object,
      })),
    });
    const sought = await create(key, "apps", { name: "Zebra Desk" });

    const firstPage = await api("GET", "/apps?include=drafts&limit=200", { key });
    expect(firstPage.body.apps.some((app: { id: string }) => app.id === sought.id)).toBe(false);
    const found = await api("GET", "/apps?include=drafts&q=zEBRA", { key });
    expect(found.body).toEqual({
      apps: [expect.objectContaining({ id: sought.id, name: "Zebra Desk", published: false })],
      nextCursor: null,
    });
    expect((await api("GET", "/apps?q=zebra", { key })).body.apps).toEqual([]);

    await publish(key, "apps", sought.id);
    await api("PATCH", `/apps/${sought.id}/draft`, { key, body: { name: "Okapi Desk" } });
    expect((await draft(key, "apps", sought.id)).name).toBe("Okapi Desk");
    expect(names((await api("GET", "/apps?q=zebra", { key })).body.apps)).toEqual(["Zebra Desk"]);
    expect(names((await api("GET", "/apps?include=drafts&q=okapi", { key })).body.apps)).toEqual(["Okapi Desk"]);
    expect((await api("GET", "/apps?include=drafts&q=zebra", { key })).body.apps).toEqual([]);
  });

  it("takes % and _ as themselves, pages through matches, and treats a blank q as none", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    for (const name of ["50% off", "500 club", "a_b", "axb"]) await create(key, "agents", { name });
    expect(names((await api("GET", "/agents?include=drafts&q=50%25", { key })).body.agents)).toEqual(["50% off"]);
    expect(names((await api("GET", "/agents?include=drafts&q=a_b", { key })).body.agents)).toEqual(["a_b"]);
    expect(
      (await api("GET", "/agents?include=drafts&q=%25", { key })).body.agents.map((a: { name: string }) => a.name),
    ).toEqual(["50% off"]);

    const page1 = await api("GET", "/agents?include=drafts&q=0&limit=1", { key });
    expect(names(page1.body.agents)).toEqual(["50% off"]);
    const page2 = await api("GET", `/agents?include=drafts&q=0&limit=1&cursor=${page1.body.nextCursor}`, { key });
    expect(names(page2.body.agents)).toEqual(["500 club"]);
    expect(page2.body.nextCursor).toBeNull();
    expect((await api("GET", "/agents?include=drafts&q=%20%20", { key })).body.agents).toHaveLength(4);
  });

  it("searches knowledgebases, flows, portals and user groups by name, each only in the caller's organization", async () => {
    const tenant = await newOrganization();
    const other = await newOrganization();
    for (const [org, suffix] of [
      [tenant, "ours"],
      [other, "theirs"],
    ] as const) {
      const key = org.orgKey.secret;
      await api("POST", "/knowledgebases", { key, body: { name: `Returns handbook (${suffix})` } });
      await api("POST", "/knowledgebases", { key, body: { name: `Shipping notes (${suffix})` } });
      await create(key, "flows", { name: `Returns triage (${suffix})` });
      await newPortal(org.operator, `Returns portal (${suffix})`);
      await newPortal(org.operator, `Partner portal (${suffix})`);
      await newGroup(org.operator, `Returns desk (${suffix})`);
      await newGroup(org.operator, `50%_club (${suffix})`);
    }
    const key = tenant.orgKey.secret;
    expect(names((await api("GET", "/knowledgebases?q=RETURNS", { key })).body.knowledgebases)).toEqual([
      "Returns handbook (ours)",
    ]);
    expect(names((await api("GET", "/flows?include=drafts&q=returns", { key })).body.flows)).toEqual([
      "Returns triage (ours)",
    ]);
    expect(names((await api("GET", "/portals?q=returns", { key })).body.portals)).toEqual(["Returns portal (ours)"]);
    expect(names((await api("GET", "/user-groups?q=RETURNS", { key })).body.userGroups)).toEqual([
      "Returns desk (ours)",
    ]);
    expect(names((await api("GET", "/user-groups?q=%25_", { key })).body.userGroups)).toEqual(["50%_club (ours)"]);
    expect((await api("GET", "/user-groups?q=0%25x", { key })).body.userGroups).toEqual([]);
  });

  it("takes % and _ in an end-user email search as themselves too", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    for (const email of ["ann_lee@example.com", "annxlee@example.com"])
      await api("POST", "/end-users", { key, body: { email } });
    const found = await api("GET", "/end-users?query=ann_", { key });
    expect(found.body.endUsers.map((user: { email: string }) => user.email)).toEqual(["ann_lee@example.com"]);
  });

  it("refuses a q longer than a name can be (invalid_request)", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const long = "x".repeat(201);
    for (const path of ["/apps", "/knowledgebases", "/portals", "/user-groups"])
      expectError(await api("GET", `${path}?q=${long}`, { key }), 400, "invalid_request");
  });
});
