// Authorization lives beside each service function (guarded() in src/server/auth/guarded.ts).
// These tests keep it so: every procedure states exactly the requirement of the service it calls,
// every service function taking an actor is guarded, and calling a service directly, without any
// procedure in front, is refused all the same.
import { randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ROLES, SCOPES } from "@/schemas/identity/auth";
import { CAPABILITIES, may, type Capability } from "@/schemas/permissions";
import { BUILDER_KINDS, type BuilderKind } from "@/schemas/builder/builder";
import type { Actor, EndUserActor, KeyActor, MemberActor } from "@/server/auth/actor";
import { authenticateApiKey } from "@/server/auth/authenticate";
import { authorize, requiredCapability, type Requirement } from "@/server/auth/authorize";
import { guarded, guardedByKind } from "@/server/auth/guarded";
import { getDb } from "@/server/db";
import { toAppError } from "@/server/errors";
import { createItem, deleteItem, getDraft } from "@/server/services/builder/builder";
import { listItems } from "@/server/services/builder/builder-lists";
import { listEndUsers } from "@/server/services/provisioning/end-user-reads";
import { createKnowledgebase } from "@/server/services/knowledge/knowledgebases";
import { addMember, listMembers } from "@/server/services/identity/members";
import { createModelProvider, listModelProviders } from "@/server/services/org/model-providers";
import { listModels } from "@/server/services/org/models";
import { createPage } from "@/server/services/knowledge/pages";
import { appRouter } from "@/server/trpc/root";
import { serviceCalledBy } from "@/server/trpc/service-procedures";
import { addPerson, issueKey, newOrganization, type Tenant } from "../helpers";

/** Procedures anyone may call: they establish who is calling (an invitation's link is its own credential). */
const PUBLIC_PROCEDURES = [
  "auth.signIn",
  "auth.signOut",
  // The second step of a password sign-in: its challenge token stands for the password just given.
  "auth.verifyMfa",
  "auth.startMfaEnrollment",
  "auth.finishMfaEnrollment",
  "invitations.preview",
  "invitations.accept",
];

/** Exported service functions taking an actor that are not guarded, each with why. */
const UNGUARDED: Record<string, string> = {
  "runs/executions.recordExecution": "records a run for the guarded service that started it",
  "support/knowledge-access.findKnowledgebase": "a lookup the guarded knowledge services share",
  "support/knowledge-access.refuseOverPlanCap": "a plan cap check inside a guarded create",
  "support/knowledge-access.reviewsWritesOf": "decides whether a guarded write waits for review",
  "knowledge/pages-shared.heldForReview":
    "records the review of a page write the guarded createPage or patchPage holds",
  "portal/portal-access.runFor": "the access rule converse and transact apply after their guard",
  "runs/app-runs.appRunFor": "the first refusals converse and transact share after their guard, runFor among them",
  "portal/portal-apps.listPortalApps": "the portal door's; its end user is checked by the portal session",
  "runs/end-user-conversations.listEndUserConversations": "the portal door's; only the end user's own conversations",
  "runs/end-user-conversations.getEndUserConversation": "the portal door's; only the end user's own conversation",
  "runs/end-user-conversations.renameEndUserConversation": "the portal door's; only the end user's own conversation",
  "runs/end-user-conversations.hideEndUserConversation": "the portal door's; only the end user's own conversation",
  "runs/conversation-runs.startConversationRun": "starts the run through the guarded converse",
  "runs/conversation-runs.findRun": "the lookup the guarded open and cancel share",
  "runs/turn-files.resolveTurnFiles": "the files of the guarded converse's turn, checked for the turn's owner",
  "runs/save-turn.saveTurn": "writes the turn of the guarded converse (or its continuation after an approval)",
  "runs/approval-pause.pauseForApproval": "records the pause of a run the guarded converse or transact started",
  "runs/executions.announceCompleted": "announces the end of a run the guarded converse or transact started",
  "identity/members.lockOutForReset": "the role rules and lock-out the guarded password resets share",
  "org/events.recordEvent": "records the change of the guarded service that makes it, in its transaction",
  "org/events.recorded": "runs a guarded service's write and records its event in one transaction",
  "provisioning/credit-requests.requestMoreCredits": "the portal door's; the signed-in end user asks for themselves",
  "runs/usage.getPortalUsage": "the portal door's; only the signed-in end user's own credits",
  "provisioning/end-user-export.streamOwnExport": "the portal door's; only the signed-in end user's own data",
  "portal/portal-export.mailExportLink": "the portal door's; mails the signed-in end user a link to their own data",
  "portal/portal-export.openOwnExport": "the portal door's; only the signed-in end user's own data, a link only theirs",
  "provisioning/end-users.provisionOn":
    "provisionEndUser's statement on a given connection; called by guarded services only",
  "identity/directory.recordDirectoryEvent":
    "the SCIM door's record of a request the guarded directory services answered or refused",
};

type ServiceModule = Record<string, unknown>;
type GuardedFn = ((...args: never[]) => Promise<unknown>) & {
  requirement?: Requirement;
  requirementFor?: (kind: string) => Requirement;
};

const SERVICES_DIR = fileURLToPath(new URL("../../src/server/services/", import.meta.url));

async function serviceModules(): Promise<[string, ServiceModule][]> {
  // The entry points and the helpers they share (support/): a helper taking an actor is checked too.
  const files = readdirSync(SERVICES_DIR, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"));
  return Promise.all(
    files.map(
      async (file) =>
        [file.replace(/\.ts$/, ""), (await import(`${SERVICES_DIR}${file}`)) as ServiceModule] as [
          string,
          ServiceModule,
        ],
    ),
  );
}

/** Every declared requirement object, with the service function that declared it. */
async function declaredRequirements(): Promise<Map<Requirement, string>> {
  const declared = new Map<Requirement, string>();
  for (const [, module] of await serviceModules()) {
    for (const [name, value] of Object.entries(module)) {
      const fn = value as GuardedFn;
      if (typeof fn !== "function") continue;
      if (fn.requirement) declared.set(fn.requirement, name);
      if (fn.requirementFor) for (const kind of BUILDER_KINDS) declared.set(fn.requirementFor(kind), name);
    }
  }
  return declared;
}

/** The name of a function's second parameter, from its source (types are gone by then). */
function secondParameter(fn: (...args: never[]) => unknown): string | undefined {
  const parameters = /^[^(]*\(([^)]*)\)/.exec(fn.toString())?.[1] ?? "";
  return parameters
    .split(",")[1]
    ?.trim()
    .split(/[\s=:]/)[0];
}

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
  return {
    kind: "member",
    organizationId: tenant.organization.id,
    member: { id: person.member.id, role, email: person.email },
  };
}

function endUserActor(tenant: Tenant): EndUserActor {
  return {
    kind: "end_user",
    organizationId: tenant.organization.id,
    endUser: { id: randomUUID(), email: "someone@example.test", fullName: "" },
    portalId: randomUUID(),
  };
}

describe("guarded()", () => {
  const operator: Actor = { kind: "operator", organizationId: "org" };
  const member = (role: "viewer" | "member"): Actor => ({
    kind: "member",
    organizationId: "org",
    member: { id: "m", role, email: "m@example.test" },
  });

  it("keeps the function's name and carries its requirement, frozen", () => {
    const requirement = { scope: "knowledge:write" } as const;
    const writeThing = guarded(
      requirement,
      async function writeThing(_db: unknown, _actor: Actor, input: { n: number }) {
        return input.n;
      },
    );
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
    const agentsOnly: KeyActor = {
      kind: "key",
      organizationId: "org",
      keyId: "k",
      keyName: "k",
      keyKind: "organization",
      scopes: ["agents:write"],
      member: null,
    };
    expect(await refusal(writeItem(null, agentsOnly, "agent"))).toBe("ok");
    expect(await refusal(writeItem(null, agentsOnly, "app"))).toBe("insufficient_scope");
    expect(await refusal(writeItem(null, operator, "app"))).toBe("ok");
  });
});

describe("every door reads the service's requirement", () => {
  it("gives every procedure the requirement object of the service its resolver calls", async () => {
    const declared = await declaredRequirements();
    const procedures = Object.entries(
      appRouter._def.procedures as unknown as Record<
        string,
        { _def: { meta?: { auth?: Requirement }; resolver?: () => unknown } }
      >,
    );
    expect(procedures.length).toBeGreaterThan(100);
    const problems: string[] = [];
    for (const [path, procedure] of procedures) {
      const auth = procedure._def.meta?.auth;
      if (PUBLIC_PROCEDURES.includes(path)) {
        if (auth) problems.push(`${path}: public, yet states a requirement`);
        continue;
      }
      const service = auth && declared.get(auth);
      if (!service) {
        problems.push(`${path}: its requirement is not one a service declared`);
        continue;
      }
      // A procedure from service-procedures.ts records the service it calls; others name it in their resolver.
      const helperCalls = serviceCalledBy(procedure._def.resolver)?.name;
      if (helperCalls ? helperCalls !== service : !String(procedure._def.resolver).includes(service))
        problems.push(`${path}: states ${service}'s requirement but does not call ${service}`);
    }
    expect(problems).toEqual([]);
  });

  it("guards every exported service function that takes an actor, but for a short list of internal helpers", async () => {
    const unguarded: string[] = [];
    const frozen: string[] = [];
    for (const [module, exports] of await serviceModules()) {
      for (const [name, value] of Object.entries(exports)) {
        const fn = value as GuardedFn;
        if (typeof fn !== "function") continue;
        if (fn.requirement) {
          if (!Object.isFrozen(fn.requirement)) frozen.push(`${module}.${name}`);
        } else if (!fn.requirementFor && secondParameter(fn) === "actor") {
          unguarded.push(`${module}.${name}`);
        }
      }
    }
    expect(frozen).toEqual([]);
    expect(unguarded.sort()).toEqual(Object.keys(UNGUARDED).sort());
  });
});

describe("the permission table (src/schemas/permissions.ts)", () => {
  it("agrees with guarded() for every entry point and every role", async () => {
    const declared = await declaredRequirements();
    const used = new Set<Capability>();
    const disagreements: string[] = [];
    for (const [requirement, name] of declared) {
      const capability = requiredCapability(requirement);
      used.add(capability);
      for (const role of ROLES) {
        const member: Actor = {
          kind: "member",
          organizationId: "org",
          member: { id: "m", role, email: "m@example.test" },
        };
        let allowed = true;
        try {
          authorize(member, requirement);
        } catch {
          allowed = false;
        }
        if (allowed !== may(role, capability))
          disagreements.push(
            `${name}: ${role} ${allowed ? "allowed" : "refused"}, the table says ${capability} needs ${CAPABILITIES[capability].role}`,
          );
      }
    }
    expect(disagreements).toEqual([]);
    // Making owners is checked inside the member services, beyond their guard.
    expect([...new Set([...used, "owners"])].sort()).toEqual(Object.keys(CAPABILITIES).sort());
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
    expect(
      await refusal(
        createPage(getDb(), actor, { knowledgebaseId: knowledgebase.id, title: "Not allowed", markdown: "" }),
      ),
    ).toBe("insufficient_scope");
    expect(await getDb().page.count({ where: { knowledgebaseId: knowledgebase.id } })).toBe(0);
  });

  it("refuses a viewer deleting an agent, and lists drafts only with the kind's write scope", async () => {
    const tenant = await newOrganization();
    const agent = await createItem(getDb(), tenant.operator, "agent", { name: "Kept" });
    const viewer = await memberActor(tenant, "viewer");
    expect(await refusal(deleteItem(getDb(), viewer, "agent", agent.id as string))).toBe("forbidden_role");
    expect(await refusal(getDraft(getDb(), tenant.operator, "agent", agent.id as string))).toBe("ok");
    const reader = await keyActor(
      (await issueKey(tenant.operator, { kind: "organization", scopes: ["agents:read"] })).secret,
    );
    expect(await refusal(listItems(getDb(), reader, "agent", { limit: 10, include: "drafts" }))).toBe(
      "insufficient_scope",
    );
    expect(await refusal(listItems(getDb(), reader, "agent", { limit: 10 }))).toBe("ok");
    expect(await refusal(listItems(getDb(), viewer, "agent", { limit: 10, include: "drafts" }))).toBe("ok");
  });

  it("refuses a member adding a member, and a portal's end user any console service", async () => {
    const tenant = await newOrganization();
    const member = await memberActor(tenant, "member");
    const before = (await listMembers(getDb(), tenant.operator)).length;
    expect(await refusal(addMember(getDb(), member, { email: `x-${randomUUID()}@example.test`, role: "admin" }))).toBe(
      "forbidden_role",
    );
    expect((await listMembers(getDb(), tenant.operator)).length).toBe(before);
    expect(await refusal(listEndUsers(getDb(), endUserActor(tenant) as unknown as Actor, { limit: 10 }))).toBe(
      "forbidden_role",
    );
  });

  it("refuses API keys, even an owner's with every scope, the console's role-only services, and writes nothing", async () => {
    const tenant = await newOrganization();
    const organizationKey = await keyActor(
      (await issueKey(tenant.operator, { kind: "organization", scopes: [...SCOPES] })).secret,
    );
    const ownerKey = await keyActor(
      (await issueKey(tenant.operator, { kind: "personal", memberId: tenant.owner.member.id, scopes: [...SCOPES] }))
        .secret,
    );
    for (const actor of [organizationKey, ownerKey]) {
      expect(await refusal(addMember(getDb(), actor, { email: `x-${randomUUID()}@example.test`, role: "owner" }))).toBe(
        "insufficient_scope",
      );
      expect(
        await refusal(
          createModelProvider(getDb(), actor, {
            slug: "sneaky",
            name: "Sneaky",
            kind: "openai-compatible",
            baseUrl: "https://models.example.test/v1",
            models: [{ id: "m", kind: "chat" }],
          }),
        ),
      ).toBe("insufficient_scope");
      expect(await refusal(listMembers(getDb(), actor))).toBe("insufficient_scope");
      expect(await refusal(listModels(getDb(), actor))).toBe("ok");
    }
    expect((await listMembers(getDb(), tenant.operator)).map((member) => member.email)).toEqual([tenant.owner.email]);
    expect(await listModelProviders(getDb(), tenant.operator)).toEqual([]);
  });

  it("closes every requirement with a capability and no scope to keys", async () => {
    const tenant = await newOrganization();
    const organizationKey = await keyActor(
      (await issueKey(tenant.operator, { kind: "organization", scopes: [...SCOPES] })).secret,
    );
    const consoleOnly = [...(await declaredRequirements()).entries()].filter(
      ([requirement]) => requirement.may && !requirement.scope,
    );
    expect(consoleOnly.length).toBeGreaterThan(10);
    for (const [requirement, name] of consoleOnly) {
      expect(() => authorize(organizationKey, requirement), name).toThrow(/scope/);
    }
  });
});
