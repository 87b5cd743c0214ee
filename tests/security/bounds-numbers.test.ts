// Integers and times a client sends (issue 25, item 5): each integer has a documented maximum
// inside PostgreSQL's `integer`, each time a range PostgreSQL and JavaScript both hold. Past it:
// 400 `invalid_request` naming the field on REST and on the console door, never 500, and
// nothing written.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { COMMANDS, parseFlags } from "@/cli/commands";
import { getDb } from "@/server/db";
import { toAppError } from "@/server/errors";
import { MAX_CREDITS, MAX_INPUT_TIME, MAX_PLAN_CAP, MIN_INPUT_TIME } from "@/schemas/limits";
import { api, newOrganization, signInCookie, trpc, uniqueSuffix, type ApiResponse } from "../helpers";

type Schema = Record<string, any>;

const INT32_OVERFLOW = 2_147_483_648;
const YEAR_ZERO = "0000-01-01T00:00:00Z";

function restProblemPaths(response: ApiResponse): string[] {
  return (response.body?.error?.problems ?? []).map((problem: { path: string }) => problem.path);
}

function expectRestInvalid(response: ApiResponse, path: string): void {
  expect({ status: response.status, code: response.body?.error?.code }, response.text.slice(0, 500)).toEqual({
    status: 400,
    code: "invalid_request",
  });
  expect(restProblemPaths(response)).toContain(path);
}

function expectConsoleInvalid(response: ApiResponse, path: string): void {
  const appError = response.body?.error?.data?.appError;
  expect({ status: response.status, code: appError?.code }, response.text.slice(0, 500)).toEqual({
    status: 400,
    code: "invalid_request",
  });
  expect((appError?.problems ?? []).map((problem: { path: string }) => problem.path)).toContain(path);
}

describe("integers past their maximum", () => {
  it("organization.update refuses an int32 overflow and anything over the documented caps, naming the field; nothing written", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    for (const field of ["maxKnowledgebases", "maxSourcesPerKnowledgebase"]) {
      for (const value of [INT32_OVERFLOW, MAX_PLAN_CAP + 1, -1, 1.5]) {
        expectConsoleInvalid(await trpc("mutation", "organization.update", { [field]: value }, { cookie }), field);
      }
    }
    const stored = await getDb().organization.findUniqueOrThrow({ where: { id: tenant.organization.id } });
    expect(stored.maxKnowledgebases).toBe(tenant.organization.maxKnowledgebases);
    expect(stored.maxSourcesPerKnowledgebase).toBe(tenant.organization.maxSourcesPerKnowledgebase);
    // The caps are the operator's (tests/security/operator-settings.test.ts); the CLI takes the documented maximum.
    expect(() =>
      parseFlags(COMMANDS["org update"]!.flags, ["--org", randomUUID(), "--max-knowledgebases", String(MAX_PLAN_CAP)]),
    ).not.toThrow();
  });

  it("a tier plan's credit allowance over the maximum is 400 on the console door", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    for (const value of [INT32_OVERFLOW, MAX_CREDITS + 1]) {
      expectConsoleInvalid(
        await trpc("mutation", "tierPlans.create", { name: "Big", creditAllowance: value }, { cookie }),
        "creditAllowance",
      );
    }
    expect(await getDb().tierPlan.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });

  it("an app member's position over the maximum is 400 on REST and on the console door", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const members = [{ id: randomUUID(), kind: "agent", position: INT32_OVERFLOW }];
    expectRestInvalid(
      await api("POST", "/apps", { key: tenant.orgKey.secret, body: { name: "App", members } }),
      "members.0.position",
    );
    expectConsoleInvalid(
      await trpc("mutation", "apps.create", { name: "App", members }, { cookie }),
      "members.0.position",
    );
  });

  it("the admin CLI refuses credits and caps past their maximum, naming the flag", () => {
    const refusal = (command: string, args: string[]) => {
      try {
        parseFlags(COMMANDS[command]!.flags, args);
      } catch (error) {
        return toAppError(error).toBody();
      }
      return undefined;
    };
    const orgId = randomUUID();
    expect(refusal("org update", ["--org", orgId, "--credits", String(INT32_OVERFLOW)])).toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("credits"),
    });
    expect(refusal("org update", ["--org", orgId, "--max-knowledgebases", String(MAX_PLAN_CAP + 1)])).toMatchObject({
      code: "invalid_request",
    });
    expect(refusal("org update", ["--org", orgId, "--credits", String(MAX_CREDITS)])).toBeUndefined();
  });

  it("a list limit past 200 is 400 naming limit", async () => {
    const tenant = await newOrganization();
    expectRestInvalid(await api("GET", `/end-users?limit=${INT32_OVERFLOW}`, { key: tenant.orgKey.secret }), "limit");
  });

  it("every integer in a request body or query of the OpenAPI document has a minimum and a maximum", async () => {
    const doc = (await api("GET", "/openapi.json")).body;
    const resolve = (schema: Schema | undefined): Schema => {
      let current = schema ?? {};
      while (current.$ref) current = doc.components.schemas[String(current.$ref).split("/").pop()!];
      return current;
    };
    const unbounded: string[] = [];
    const walk = (schema: Schema | undefined, where: string, seen: Set<Schema>) => {
      const resolved = resolve(schema);
      if (seen.has(resolved)) return;
      seen.add(resolved);
      if (resolved.type === "integer" && (resolved.maximum === undefined || resolved.minimum === undefined))
        unbounded.push(where);
      for (const option of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])])
        walk(option, where, seen);
      for (const [name, property] of Object.entries<Schema>(resolved.properties ?? {}))
        walk(property, `${where}.${name}`, seen);
      if (resolved.items) walk(resolved.items, `${where}[]`, seen);
    };
    for (const [path, operations] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        walk(operation.requestBody?.content?.["application/json"]?.schema, `${method} ${path} body`, new Set());
        for (const parameter of operation.parameters ?? [])
          walk(parameter.schema, `${method} ${path} ${parameter.name}`, new Set());
      }
    }
    expect(unbounded).toEqual([]);
  });
});

describe("times out of range", () => {
  it(`a grant expiresAt of year 0000 is 400 naming it on REST and the console door; ${MIN_INPUT_TIME} and ${MAX_INPUT_TIME} are taken`, async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const email = `dates-${uniqueSuffix()}@example.test`;
    const grants = (expiresAt: string) => [{ targetKind: "app", targetId: randomUUID(), expiresAt }];
    for (const expiresAt of [YEAR_ZERO, "1969-12-31T23:59:59Z", "9999-12-31T23:59:59-01:00"]) {
      expectRestInvalid(
        await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email, grants: grants(expiresAt) } }),
        "grants.0.expiresAt",
      );
      expectConsoleInvalid(
        await trpc("mutation", "endUsers.provision", { email, grants: grants(expiresAt) }, { cookie }),
        "grants.0.expiresAt",
      );
    }
    expect(await getDb().endUser.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
    // In range, validation passes: what follows is about the grant's target, not the time.
    for (const expiresAt of [MIN_INPUT_TIME, MAX_INPUT_TIME]) {
      const response = await api("POST", "/end-users", {
        key: tenant.orgKey.secret,
        body: { email, grants: grants(expiresAt) },
      });
      expect(response.body.error?.code).toBe("grant_target_not_found");
    }
  });

  it("updatedSince and expectedUpdatedAt of year 0000 are 400 naming them", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    expectRestInvalid(
      await api("GET", `/agents?include=drafts&updatedSince=${encodeURIComponent(YEAR_ZERO)}`, {
        key: tenant.orgKey.secret,
      }),
      "updatedSince",
    );
    expectConsoleInvalid(
      await trpc("query", "agents.list", { include: "drafts", updatedSince: YEAR_ZERO }, { cookie }),
      "updatedSince",
    );
    expectRestInvalid(
      await api("PATCH", `/agents/${randomUUID()}/draft`, {
        key: tenant.orgKey.secret,
        body: { expectedUpdatedAt: YEAR_ZERO },
      }),
      "expectedUpdatedAt",
    );
    expectConsoleInvalid(
      await trpc("mutation", "agents.patchDraft", { agentId: randomUUID(), expectedUpdatedAt: YEAR_ZERO }, { cookie }),
      "expectedUpdatedAt",
    );
  });
});
