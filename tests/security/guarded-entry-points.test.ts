// Authorization lives beside each service function (guarded() in src/server/auth/guarded.ts):
// calling a service directly, without any procedure in front, is refused all the same.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { BuilderKind } from "@/schemas/builder";
import type { Actor, EndUserActor, KeyActor, MemberActor } from "@/server/auth/actor";
import { authenticateApiKey } from "@/server/auth/authenticate";
import { guarded, guardedByKind } from "@/server/auth/guarded";
import { getDb } from "@/server/db";
import { toAppError } from "@/server/errors";
import { createItem, deleteItem, getDraft, listItems } from "@/server/services/builder";
import { listEndUsers } from "@/server/services/end-users";
import { createKnowledgebase } from "@/server/services/knowledgebases";
import { addMember, listMembers } from "@/server/services/members";
import { createPage } from "@/server/services/pages";
import { addPerson, issueKey, newOrganization, type Tenant } from "../helpers";

async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (error) {
    return toAppError(error).code;
  }
}

async function keyActor(secret: string): Promise<KeyActor> {
  return (await authenticateApiKey(getDb(), `Bearer ${secret}`, "api")).actor;
}

async function memberActor(tenant: Tenant, role: "viewer" | "member" | "admin"): Promise<MemberActor> {
  const person = await addPerson(tenant.operator, role);
  return { kind: "member", organizationId: tenant.organization.id, member: { id: person.member.id, role, email: person.email } };
}

function endUserActor(tenant: Tenant): EndUserActor {
  return { kind: "end_user", organizationId: tenant.organization.id, endUser: { id: randomUUID(), email: "someone@example.test", fullName: "" }, portalId: randomUUID() };
}

describe("guarded()", () => {
  const operator: Actor = { kind: "operator", organizationId: "org" };
  const member = (role: "viewer" | "member"): Actor => ({ kind: "member", organizationId: "org", member: { id: "m", role, email: "m@example.test" } });

  it("keeps the function's name and carries its requirement, frozen", () => {
    const requirement = { scope: "knowledge:write" } as const;
    const writeThing = guarded(requirement, async function writeThing(_db: unknown, _actor: Actor, input: { n: number }) {
      return input.n;
    });
    expect(writeThing.name).toBe("writeThing");
    expect(writeThing.requirement).toEqual(requirement);
    expect(writeThing.requirement).not.toBe(requirement);
    expect(Object.isFrozen(writeThing.requirement)).toBe(true);
    expect(() => Object.assign(writeThing, { requirement: {} })).toThrow(TypeError);
  });

  it("refuses with a rejected promise, before the function runs", async () => {
    let ran = false;
    const writeThing = guarded({ scope: "knowledge:write" }, async (_db: unknown, _actor: Actor) => {
      ran = true;
    });
    const call = writeThing(null, member("viewer"));
    expect(call).toBeInstanceOf(Promise);
    expect(await refusal(call)).toBe("forbidden_role");
    expect(ran).toBe(false);
    expect(await refusal(writeThing(null, member("member")))).toBe("ok");
    expect(ran).toBe(true);
  });

  it("judges a kind-dependent function by its kind, with one requirement object per kind", async () => {
    const writeItem = guardedByKind(
      (kind) => ({ scope: kind === "agent" ? "agents:write" : "apps:write" }),
      async (_db: unknown, _actor: Actor, _kind: BuilderKind) => "done",
    );
    expect(writeItem.requirementFor("agent")).toBe(writeItem.requirementFor("agent"));
    expect(writeItem.requirementFor("agent").scope).toBe("agents:write");
    const agentsOnly: KeyActor = { kind: "key", organizationId: "org", keyId: "k", keyName: "k", keyKind: "organization", scopes: ["agents:write"], member: null };
    expect(await refusal(writeItem(null, agentsOnly, "agent"))).toBe("ok");
    expect(await refusal(writeItem(null, agentsOnly, "app"))).toBe("insufficient_scope");
    expect(await refusal(writeItem(null, operator, "app"))).toBe("ok");
  });
});

describe("calling a service directly, without a procedure", () => {
  it("refuses a viewer's personal key a knowledge write with forbidden_role, and writes nothing", async () => {
    const tenant = await newOrganization();
    const viewer = await addPerson(tenant.operator, "viewer");
    const key = await issueKey(tenant.operator, { kind: "personal", memberId: viewer.member.id });
    const actor = await keyActor(key.secret);
    expect(await refusal(createKnowledgebase(getDb(), actor, { name: "Not allowed" }))).toBe("forbidden_role");
    expect(await getDb().knowledgebase.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });

  it("refuses an organization key without knowledge:write a page with insufficient_scope, and writes nothing", async () => {
    const tenant = await newOrganization();
    const { knowledgebase } = await createKnowledgebase(getDb(), tenant.operator, { name: "Handbook" });
    const key = await issueKey(tenant.operator, { kind: "organization", scopes: ["knowledge:read"] });
    const actor = await keyActor(key.secret);
    expect(await refusal(createPage(getDb(), actor, { knowledgebaseId: knowledgebase.id, title: "Not allowed", markdown: "" }))).toBe("insufficient_scope");
    expect(await getDb().page.count({ where: { knowledgebaseId: knowledgebase.id } })).toBe(0);
  });

  it("refuses a viewer deleting an agent, and lists drafts only with the kind's write scope", async () => {
    const tenant = await newOrganization();
    const agent = await createItem(getDb(), tenant.operator, "agent", { name: "Kept" });
    const viewer = await memberActor(tenant, "viewer");
    expect(await refusal(deleteItem(getDb(), viewer, "agent", agent.id as string))).toBe("forbidden_role");
    expect(await refusal(getDraft(getDb(), tenant.operator, "agent", agent.id as string))).toBe("ok");
    const reader = await keyActor((await issueKey(tenant.operator, { kind: "organization", scopes: ["agents:read"] })).secret);
    expect(await refusal(listItems(getDb(), reader, "agent", { limit: 10, include: "drafts" }))).toBe("insufficient_scope");
    expect(await refusal(listItems(getDb(), reader, "agent", { limit: 10 }))).toBe("ok");
    expect(await refusal(listItems(getDb(), viewer, "agent", { limit: 10, include: "drafts" }))).toBe("ok");
  });

  it("refuses a member adding a member, and a portal's end user any console service", async () => {
    const tenant = await newOrganization();
    const member = await memberActor(tenant, "member");
    const before = (await listMembers(getDb(), tenant.operator)).length;
    expect(await refusal(addMember(getDb(), member, { email: `x-${randomUUID()}@example.test`, role: "admin" }))).toBe("forbidden_role");
    expect((await listMembers(getDb(), tenant.operator)).length).toBe(before);
    expect(await refusal(listEndUsers(getDb(), endUserActor(tenant) as unknown as Actor, { limit: 10 }))).toBe("forbidden_role");
  });
});
