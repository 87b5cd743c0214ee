// The command palette (find.byName over name-search.ts findByName): end users by email or name,
// apps, agents, flows, knowledgebases and pages by name, within the organization only, a few per
// kind, % and _ taken literally, the text bounded, and a long input answered at once.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { provisionEndUser } from "@/server/services/provisioning/end-users";
import { create } from "../builder-helpers";
import { newOrganization, signInCookie, trpc, trpcErrorCode, uniqueSuffix, type Tenant } from "../helpers";

async function find(tenant: Tenant, q: string) {
  const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
  return trpc("query", "find.byName", { q }, { cookie });
}

async function seed(tenant: Tenant): Promise<{ aliceId: string; kbId: string; pageId: string }> {
  const db = getDb();
  const organizationId = tenant.organization.id;
  const alice = (
    await provisionEndUser(db, tenant.operator, {
      email: `alice-${uniqueSuffix()}@example.test`,
      fullName: "Alice Liddell",
    })
  ).endUser;
  await provisionEndUser(db, tenant.operator, { email: `bob-${uniqueSuffix()}@example.test`, fullName: "Bob Marley" });
  await create(tenant.orgKey.secret, "apps", { name: "Alibi checker" });
  await create(tenant.orgKey.secret, "agents", { name: "Salinger" });
  const kb = await db.knowledgebase.create({ data: { organizationId, name: "Alias book" } });
  const page = await db.page.create({ data: { organizationId, knowledgebaseId: kb.id, title: "Kalimba notes" } });
  // An end user's own notebook is not the organization's knowledge.
  await db.knowledgebase.create({ data: { organizationId, endUserId: alice.id, name: "Alice's notebook" } });
  return { aliceId: alice.id, kbId: kb.id, pageId: page.id };
}

describe("find.byName", () => {
  it("finds each kind by part of its name, linking to its page", async () => {
    const tenant = await newOrganization();
    const { aliceId, kbId, pageId } = await seed(tenant);
    const response = await find(tenant, "ALI");
    expect(response.status).toBe(200);
    const items = response.body.result.data.items;
    expect(items.map((item: { kind: string; name: string }) => `${item.kind}:${item.name}`).sort()).toEqual(
      [
        "agent:Salinger",
        "app:Alibi checker",
        "end_user:Alice Liddell",
        "knowledgebase:Alias book",
        "page:Kalimba notes",
      ].sort(),
    );
    expect(items.find((item: { kind: string }) => item.kind === "end_user").href).toBe(`/end-users/${aliceId}`);
    expect(items.find((item: { kind: string }) => item.kind === "page").href).toBe(`/knowledge/${kbId}?page=${pageId}`);
  });

  it("never finds another organization's items, and takes % and _ literally", async () => {
    const mine = await newOrganization();
    const theirs = await newOrganization();
    await seed(theirs);
    expect((await find(mine, "ali")).body.result.data.items).toEqual([]);
    await seed(mine);
    expect((await find(mine, "%")).body.result.data.items).toEqual([]);
    expect((await find(mine, "_")).body.result.data.items).toEqual([]);
  });

  it("gives at most 5 of a kind, refuses text over 200 characters, and answers a long pathological text at once", async () => {
    const tenant = await newOrganization();
    for (let n = 0; n < 7; n++)
      await provisionEndUser(getDb(), tenant.operator, { email: `ali${n}-${uniqueSuffix()}@example.test` });
    expect((await find(tenant, "ali")).body.result.data.items).toHaveLength(5);
    const tooLong = await find(tenant, "a".repeat(201));
    expect(tooLong.status).toBe(400);
    expect(trpcErrorCode(tooLong)).toBe("invalid_request");
    const started = Date.now();
    expect((await find(tenant, "a%".repeat(100))).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
