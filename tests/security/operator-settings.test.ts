// What the operator of the installation sets (the admin CLI) is not the organization's to change:
// the plan, the credits, the plan's quality checker and its caps on knowledge. After
// `admin org update --quality-checker false --max-knowledgebases 1`, neither an admin nor an
// owner turns the checker back on or lifts the cap through the console; the organization's own
// settings (its name, the API switch) stay theirs.
import { describe, expect, it } from "vitest";
import { COMMANDS, parseFlags } from "@/cli/commands";
import { getDb } from "@/server/db";
import { updateOrganization } from "@/server/services/org/organizations";
import { addPerson, api, newOrganization, signInCookie, trpc, type ApiResponse } from "../helpers";

/** Runs an admin CLI command in-process, as `npm run admin -- <command> <flags>` does. */
async function cli(command: string, ...args: string[]): Promise<any> {
  const spec = COMMANDS[command]!;
  return spec.run(getDb(), parseFlags(spec.flags, args));
}

function expectRefusedNaming(response: ApiResponse, field: string): void {
  const appError = response.body?.error?.data?.appError;
  expect({ status: response.status, code: appError?.code }, response.text.slice(0, 300)).toEqual({
    status: 400,
    code: "invalid_request",
  });
  expect(JSON.stringify(appError)).toContain(field);
}

const OPERATOR_CHANGES = [
  { qualityChecker: true },
  { maxKnowledgebases: null },
  { maxKnowledgebases: 50 },
  { maxSourcesPerKnowledgebase: null },
  { plan: "agency" },
  { credits: 1_000_000 },
] as const;

describe("settings the operator sets", () => {
  // Some fifteen requests through the console door: on a busy machine, more than the default 30 s.
  it("are refused to an admin and an owner on the console door, nothing written; the organization's own settings stay theirs", async () => {
    const tenant = await newOrganization({ plan: "pro" });
    const org = tenant.organization.id;
    const switched = await cli("org update", "--org", org, "--quality-checker", "false", "--max-knowledgebases", "1");
    expect(switched.organization).toMatchObject({ qualityChecker: false, maxKnowledgebases: 1 });
    const admin = await addPerson(tenant.operator, "admin");
    const before = await getDb().organization.findUniqueOrThrow({ where: { id: org } });

    for (const cookie of [
      await signInCookie(admin.email, admin.password),
      await signInCookie(tenant.owner.email, tenant.owner.password),
    ]) {
      for (const change of OPERATOR_CHANGES) {
        const field = Object.keys(change)[0]!;
        expectRefusedNaming(await trpc("mutation", "organization.update", change, { cookie }), field);
      }
      // Hidden among the organization's own settings, it is refused just the same.
      expectRefusedNaming(
        await trpc("mutation", "organization.update", { name: "Renamed", qualityChecker: true }, { cookie }),
        "qualityChecker",
      );
    }
    const after = await getDb().organization.findUniqueOrThrow({ where: { id: org } });
    expect(after).toEqual(before);
    expect(
      await getDb().auditEvent.count({
        where: { organizationId: org, action: "organization.update", door: "console" },
      }),
    ).toBe(0);

    // The cap holds: a second knowledgebase is over the plan's limit.
    const key = tenant.orgKey.secret;
    expect((await api("POST", "/knowledgebases", { key, body: { name: "First" } })).status).toBe(201);
    const second = await api("POST", "/knowledgebases", { key, body: { name: "Second" } });
    expect(second.status).toBe(403);
    expect(second.body.error).toMatchObject({ code: "plan_limit", limit: 1, used: 1 });

    // What is the organization's own, an admin still changes.
    const adminCookie = await signInCookie(admin.email, admin.password);
    const own = await trpc(
      "mutation",
      "organization.update",
      { name: "Renamed", apiEnabled: false },
      { cookie: adminCookie },
    );
    expect(own.status).toBe(200);
    expect(own.body.result.data).toMatchObject({
      name: "Renamed",
      apiEnabled: false,
      qualityChecker: false,
      maxKnowledgebases: 1,
    });
  }, 90_000);

  it("are refused by the service to every actor but the operator, whatever door calls it", async () => {
    const tenant = await newOrganization({ plan: "pro" });
    const ownerActor = {
      kind: "member" as const,
      organizationId: tenant.organization.id,
      member: { id: tenant.owner.member.id, role: "owner" as const, email: tenant.owner.email },
    };
    await updateOrganization(getDb(), tenant.operator, { qualityChecker: false, maxKnowledgebases: 1 });
    for (const change of OPERATOR_CHANGES) {
      await expect(updateOrganization(getDb(), ownerActor, change)).rejects.toMatchObject({ code: "forbidden_role" });
    }
    expect(await getDb().organization.findUniqueOrThrow({ where: { id: tenant.organization.id } })).toMatchObject({
      qualityChecker: false,
      maxKnowledgebases: 1,
      plan: "pro",
    });
    // The operator changes them.
    expect(await updateOrganization(getDb(), tenant.operator, { qualityChecker: true })).toMatchObject({
      qualityChecker: true,
    });
  });
});
