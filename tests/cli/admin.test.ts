// The admin CLI: one JSON object on stdout and exit 0, or {"error":{code,message}} and exit 1.
// Its door is the process `npm run admin` starts, and "the admin CLI process" spawns it for real
// (the compiled dist/server/admin.mjs when a build newer than the sources exists, else through
// tsx as npm runs it). A process start costs 2 to 18 s on a loaded two-core machine, so the other
// cases run their command lines through runCommandLine, the function that process runs between
// opening the database and exiting, against this file's database.
import { execFile } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCommandLine } from "@/cli/commands";
import { getDb } from "@/server/db";
import { SERVER_DIST, serverBuildIsStale } from "../../scripts/build-server.mjs";
import { api, signInCookie, trpc } from "../helpers";

const root = path.resolve(import.meta.dirname, "../..");

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

function parsed(code: number, stdout: string, stderr: string): CliResult {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

/** A command line as the process runs it, in this process. */
async function cli(...args: string[]): Promise<CliResult> {
  const { exitCode, line } = await runCommandLine(args, (task) => task(getDb()));
  return parsed(exitCode, `${line}\n`, "");
}

/** The CLI's process, compiled when a fresh build exists, else as `npm run admin` starts it. */
const door = serverBuildIsStale()
  ? { file: path.join(root, "node_modules", ".bin", "tsx"), args: ["src/cli/admin.ts"] }
  : { file: process.execPath, args: [path.join(SERVER_DIST, "admin.mjs")] };

function spawnCli(...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      door.file,
      [...door.args, ...args],
      { cwd: root, env: process.env, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve(parsed(error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr)),
    );
  });
}

/** Exactly one JSON object on stdout, on one line. */
function expectOneJsonObject(result: CliResult): void {
  const lines = result.stdout.split("\n").filter((line) => line !== "");
  expect(lines, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toHaveLength(1);
  expect(result.json).toBeTypeOf("object");
  expect(Array.isArray(result.json)).toBe(false);
  expect(result.json).not.toBeNull();
}

function expectSuccess(result: CliResult): void {
  expectOneJsonObject(result);
  expect(result.json.error, result.stdout).toBeUndefined();
  expect(result.code).toBe(0);
}

function expectFailure(result: CliResult, code: string): void {
  expectOneJsonObject(result);
  expect(result.code).toBe(1);
  expect(Object.keys(result.json)).toEqual(["error"]);
  expect(result.json.error).toMatchObject({ code, message: expect.any(String) });
  expect(result.json.error.message.length).toBeGreaterThan(0);
}

describe("the admin CLI process", { timeout: 120_000 }, () => {
  it("prints one JSON object and exits 0, or prints the error envelope and exits 1", async () => {
    // Side by side: each start is the slow part. Both open the database; the rest of the command
    // line (unknown commands, flags, every group) is runCommandLine's, covered below.
    const [created, unknownOrg] = await Promise.all([
      spawnCli("org", "create", "--name", "Process Org", "--credits", "7"),
      spawnCli("org", "show", "--org", "00000000-0000-4000-8000-000000000000"),
    ]);
    expectSuccess(created);
    expect(created.json.organization).toMatchObject({ name: "Process Org", plan: "pro", credits: 7 });
    expect(await getDb().organization.count({ where: { id: created.json.organization.id } })).toBe(1);
    expectFailure(unknownOrg, "not_found");
    expect(unknownOrg.json.error.message).toContain("00000000-0000-4000-8000-000000000000");
  });
});

describe("admin CLI", () => {
  it("manages an organization, its members and keys end to end", async () => {
    // org create: defaults (plan pro, 1000 credits) and explicit values.
    const [created, agency] = await Promise.all([
      cli("org", "create", "--name", "CLI Org"),
      cli("org", "create", "--name", "Agency Org", "--plan", "agency", "--credits", "5"),
    ]);
    expectSuccess(created);
    const organization = created.json.organization;
    expect(organization).toMatchObject({
      name: "CLI Org",
      plan: "pro",
      credits: 1000,
      apiEnabled: true,
      maxKnowledgebases: null,
    });
    expectSuccess(agency);
    expect(agency.json.organization).toMatchObject({ name: "Agency Org", plan: "agency", credits: 5 });
    expect(await getDb().organization.count({ where: { id: organization.id } })).toBe(1);

    // org show, org update (free + cap), member add, all independent of each other's output.
    const email = `cli-${organization.id}@example.test`;
    const [shown, updated, memberAdded] = await Promise.all([
      cli("org", "show", "--org", organization.id),
      cli(
        "org",
        "update",
        "--org",
        organization.id,
        "--plan",
        "free",
        "--max-knowledgebases",
        "3",
        "--review-agent-writes",
        "true",
      ),
      cli(
        "member",
        "add",
        "--org",
        organization.id,
        "--email",
        email,
        "--role",
        "admin",
        "--password",
        "correct-horse-1",
      ),
    ]);
    expectSuccess(shown);
    expect(shown.json.organization).toMatchObject({ id: organization.id, name: "CLI Org", credits: 1000 });
    for (const setting of [
      "plan",
      "reviewAgentWrites",
      "accessMode",
      "apiEnabled",
      "appsApiEnabled",
      "mcpEnabled",
      "groupsEnabled",
      "qualityChecker",
      "maxKnowledgebases",
      "maxSourcesPerKnowledgebase",
    ]) {
      expect(shown.json.organization).toHaveProperty(setting);
    }
    expectSuccess(updated);
    expect(updated.json.organization).toMatchObject({
      id: organization.id,
      plan: "free",
      maxKnowledgebases: 3,
      reviewAgentWrites: true,
    });
    expectSuccess(memberAdded);
    const member = memberAdded.json.member;
    expect(member).toMatchObject({ email, role: "admin", organizationId: organization.id, removedAt: null });
    expect(member.temporaryPassword).toBeUndefined(); // a password was given

    // Back on pro with no cap ("none"); keys for the organization and for the member.
    const [restored, orgKey, personalKey] = await Promise.all([
      cli("org", "update", "--org", organization.id, "--plan", "pro", "--max-knowledgebases", "none"),
      cli("key", "create", "--org", organization.id),
      cli("key", "create", "--org", organization.id, "--member", member.id, "--scopes", "knowledge:read,apps:execute"),
    ]);
    expectSuccess(restored);
    expect(restored.json.organization).toMatchObject({ plan: "pro", maxKnowledgebases: null, reviewAgentWrites: true });
    const stored = await getDb().organization.findUniqueOrThrow({ where: { id: organization.id } });
    expect(stored).toMatchObject({ plan: "pro", maxKnowledgebases: null });

    expectSuccess(orgKey);
    expect(orgKey.json.key).toMatchObject({ kind: "organization", memberId: null, id: expect.any(String) });
    expect(orgKey.json.key.secret).toMatch(/^sk_org_/);
    expect(orgKey.json.key.scopes).toHaveLength(14); // all scopes by default
    expectSuccess(personalKey);
    expect(personalKey.json.key).toMatchObject({
      kind: "personal",
      memberId: member.id,
      scopes: ["knowledge:read", "apps:execute"],
    });
    expect(personalKey.json.key.secret).toMatch(/^sk_mem_/);

    // The keys work against the API, and the member signs in with the password given.
    for (const key of [orgKey.json.key, personalKey.json.key]) {
      const response = await api("GET", "/models", { key: key.secret });
      expect(response.status).toBe(200);
      expect(response.body.models.map((m: { id: string }) => m.id)).toContain("atrium-offline");
    }
    await signInCookie(email, "correct-horse-1");

    // key revoke and member remove: the API refuses the keys on their next request.
    const [revoked, removed, unchanged] = await Promise.all([
      cli("key", "revoke", "--key", orgKey.json.key.id),
      cli("member", "remove", "--member", member.id),
      cli("org", "update", "--org", organization.id),
    ]);
    // `org update --org` alone changes nothing and prints the organization.
    expectSuccess(unchanged);
    expect(unchanged.json.organization).toEqual(restored.json.organization);
    expectSuccess(revoked);
    expect(revoked.json.key).toMatchObject({ id: orgKey.json.key.id, revokedAt: expect.any(String) });
    expect(revoked.json.key.secret).toBeUndefined();
    expectSuccess(removed);
    expect(removed.json.member).toMatchObject({ id: member.id, removedAt: expect.any(String) });

    expect((await api("GET", "/models", { key: orgKey.json.key.secret })).body.error.code).toBe("api_key_revoked");
    expect((await api("GET", "/models", { key: personalKey.json.key.secret })).body.error.code).toBe("member_removed");
  });

  it("member add without a password prints a temporary one", async () => {
    const created = await cli("org", "create", "--name", "Temp Org");
    expectSuccess(created);
    const email = `temp-${created.json.organization.id}@example.test`;
    const added = await cli("member", "add", "--org", created.json.organization.id, "--email", email);
    expectSuccess(added);
    expect(added.json.member).toMatchObject({ email, role: "member" });
    expect(added.json.member.temporaryPassword).toEqual(expect.any(String));
    await signInCookie(email, added.json.member.temporaryPassword);
  });

  it("seed demo makes an organization with working keys and a login", async () => {
    const seeded = await cli("seed", "demo");
    expectSuccess(seeded);
    const { organization, orgKey, personalKey, login } = seeded.json;
    expect(organization).toMatchObject({ id: expect.any(String), plan: "pro" });
    expect(orgKey.secret).toMatch(/^sk_org_/);
    expect(personalKey.secret).toMatch(/^sk_mem_/);
    expect(personalKey.memberId).toEqual(expect.any(String));
    expect(login).toEqual({ email: expect.any(String), password: expect.any(String) });

    expect((await api("GET", "/models", { key: orgKey.secret })).status).toBe(200);
    expect((await api("GET", "/models", { key: personalKey.secret })).status).toBe(200);
    const cookie = await signInCookie(login.email, login.password);
    const me = await trpc("query", "auth.me", undefined, { cookie });
    expect(me.body.result.data).toMatchObject({
      member: { role: "owner", id: personalKey.memberId },
      organization: { id: organization.id },
    });
  });

  it("prices a model, lists and removes its price; an unknown model is invalid_model", async () => {
    const org = await cli("org", "create", "--name", "Prices CLI");
    expectSuccess(org);
    const orgId = org.json.organization.id as string;
    const flags = ["--org", orgId, "--input", "3000", "--output", "15000"];
    const [set, unknown] = await Promise.all([
      cli("price", "set", "--model", "atrium-offline", ...flags),
      cli("price", "set", "--model", "no-such-model", ...flags),
    ]);
    expectSuccess(set);
    expect(set.json.modelPrice).toMatchObject({
      modelId: "atrium-offline",
      inputCreditsPerMillion: 3000,
      outputCreditsPerMillion: 15000,
      minimumCredits: 1,
    });
    expect(unknown.code).toBe(1);
    expect(unknown.json.error.code).toBe("invalid_model");
    const list = await cli("price", "list", "--org", orgId);
    expect(list.json.modelPrices).toHaveLength(1);
    expectSuccess(await cli("price", "remove", "--org", orgId, "--model", "atrium-offline"));
    expect(await getDb().modelPrice.count({ where: { organizationId: orgId } })).toBe(0);
  });

  it("manages plans, portals, billing links and end users", async () => {
    const org = await cli("org", "create", "--name", "Provisioning CLI");
    expectSuccess(org);
    const orgId = org.json.organization.id as string;
    const [plan, plainPlan, portal] = await Promise.all([
      cli("plan", "create", "--org", orgId, "--name", "Gold", "--credits", "300", "--with-group"),
      cli("plan", "create", "--org", orgId, "--name", "Basic"),
      cli("portal", "create", "--org", orgId, "--name", "Members area"),
    ]);
    expectSuccess(plan);
    expect(plan.json.tierPlan).toMatchObject({
      name: "Gold",
      creditAllowance: 300,
      archived: false,
      groupId: plan.json.group.id,
    });
    expect(plan.json.group).toMatchObject({ name: "Gold", planId: plan.json.tierPlan.id, memberCount: 0 });
    expectSuccess(plainPlan);
    expect(plainPlan.json.group).toBeUndefined();
    expectSuccess(portal);
    expect(portal.json.portal).toMatchObject({ name: "Members area" });

    const user = await getDb().endUser.create({ data: { organizationId: orgId, email: "cli-person@example.test" } });
    const linked = await cli("billing", "link", "--end-user", user.id, "--plan", plan.json.tierPlan.id);
    expectSuccess(linked);
    expect(linked.json.subscription).toMatchObject({
      tierPlanId: plan.json.tierPlan.id,
      provisionedBy: "processor",
      isComped: false,
      status: "active",
    });

    const [archived, revoked] = await Promise.all([
      cli("plan", "archive", "--plan", plainPlan.json.tierPlan.id),
      cli("end-user", "revoke", "--end-user", user.id),
    ]);
    expectSuccess(archived);
    expect(archived.json.tierPlan.archived).toBe(true);
    expectSuccess(revoked);
    expect(revoked.json.endUser.revokedAt).toEqual(expect.any(String));

    const deleted = await cli("end-user", "delete", "--end-user", user.id);
    expectSuccess(deleted);
    expect((await getDb().endUser.findUniqueOrThrow({ where: { id: user.id } })).deletedAt).not.toBeNull();
    expectFailure(await cli("end-user", "revoke", "--end-user", user.id), "not_found");
  });

  it("fails with exit 1 and an error envelope", async () => {
    const missingOrg = "00000000-0000-4000-8000-000000000000";
    const [unknownCommand, noVerb, missingFlag, badFlag, unknownOrg, unknownMember, unknownKey, badPlan] =
      await Promise.all([
        cli("org", "frobnicate"),
        cli(),
        cli("org", "create"),
        cli("org", "create", "--name", "X", "--colour", "red"),
        cli("org", "show", "--org", missingOrg),
        cli("member", "remove", "--member", missingOrg),
        cli("key", "revoke", "--key", missingOrg),
        cli("org", "update", "--org", missingOrg, "--plan", "platinum"),
      ]);
    expectFailure(unknownCommand, "invalid_request");
    expect(unknownCommand.json.error.message).toContain("org frobnicate");
    expectFailure(noVerb, "invalid_request");
    expectFailure(missingFlag, "invalid_request");
    expect(missingFlag.json.error.message).toContain("--name");
    expectFailure(badFlag, "invalid_request");
    expect(badFlag.json.error.message).toContain("--colour");
    expectFailure(unknownOrg, "not_found");
    expectFailure(unknownMember, "not_found");
    expectFailure(unknownKey, "not_found");
    expectFailure(badPlan, "invalid_request");
    expect(badPlan.json.error.message).toContain("--plan");
    expect(await getDb().organization.count({ where: { name: "X" } })).toBe(0);
  });
});
