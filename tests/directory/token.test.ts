// The SCIM token: made with the admin CLI (`key create --scopes scim`), never part of "all
// scopes", and rate-limited per token with 429 and Retry-After in SCIM's error shape.
import { execFile } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { env } from "@/env";
import { awayFromWindowEdge, newOrganization } from "../helpers";
import { directoryTenant, expectScimError, scim } from "./helpers";

const root = path.resolve(import.meta.dirname, "../..");
const tsx = path.join(root, "node_modules", ".bin", "tsx");

function cli(...args: string[]): Promise<{ code: number; json: any }> {
  return new Promise((resolve) => {
    execFile(
      tsx,
      ["src/cli/admin.ts", ...args],
      { cwd: root, env: { ...process.env }, timeout: 60_000 },
      (error, stdout) => {
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        resolve({ code: error ? 1 : 0, json });
      },
    );
  });
}

describe("the SCIM token", { timeout: 120_000 }, () => {
  it("comes from `admin -- key create --scopes scim`, alone, and --all-scopes leaves it out", async () => {
    const tenant = await newOrganization();
    const [scimKey, allKey, mixed] = await Promise.all([
      cli("key", "create", "--org", tenant.organization.id, "--scopes", "scim"),
      cli("key", "create", "--org", tenant.organization.id, "--all-scopes"),
      cli("key", "create", "--org", tenant.organization.id, "--scopes", "scim,end_users:read"),
    ]);
    expect(scimKey.json.key).toMatchObject({
      kind: "organization",
      scopes: ["scim"],
      secret: expect.stringMatching(/^sk_org_/),
    });
    expect(allKey.json.key.scopes).not.toContain("scim");
    expect(mixed).toMatchObject({ code: 1, json: { error: { code: "invalid_request" } } });
    expect((await scim("GET", "/Users", { key: scimKey.json.key.secret })).status).toBe(200);
    expectScimError(await scim("GET", "/Users", { key: allKey.json.key.secret }), 403);
  });

  it("answers 429 with Retry-After in SCIM's error shape past the per-key limit", async () => {
    await awayFromWindowEdge(20);
    const tenant = await directoryTenant();
    const limit = env().RATE_LIMIT_PER_MINUTE;
    const answers = [];
    for (let index = 0; index <= limit; index++)
      answers.push(await scim("GET", "/ServiceProviderConfig", { key: tenant.scimKey }));
    const refused = answers.find((answer) => answer.status === 429)!;
    expectScimError(refused, 429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(answers[0]!.headers.get("ratelimit-limit")).toBe(String(limit));
  });
});
