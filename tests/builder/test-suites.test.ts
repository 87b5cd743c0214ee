// The test cases of an agent, flow or app are kept with it (not only in the page that typed
// them): saved from the console's Tests panel, read back when the editor opens again, held to
// their bounds, and private to the organization.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { newOrganization, signInCookie, trpc, trpcErrorCode } from "../helpers";
import { create } from "../builder-helpers";

const CASES = [
  { input: "How long do refunds take?", expectedBehavior: "Says 14 days" },
  { input: "", expectedBehavior: "Typed before its input" },
];

describe("test cases kept with their item", () => {
  it("come back when the agent is opened again, and are replaced as a whole", async () => {
    const tenant = await newOrganization();
    const agent = await create(tenant.orgKey.secret, "agents");
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);

    const empty = await trpc("query", "runtime.agentTests.suite", { id: agent.id }, { cookie });
    expect(empty.body.result.data).toEqual({ cases: [], rubric: "" });

    const saved = await trpc(
      "mutation",
      "runtime.agentTests.saveSuite",
      { id: agent.id, cases: CASES, rubric: "Polite" },
      { cookie },
    );
    expect(saved.status).toBe(200);
    const reopened = await trpc("query", "runtime.agentTests.suite", { id: agent.id }, { cookie });
    expect(reopened.body.result.data).toEqual({ cases: CASES, rubric: "Polite" });

    await trpc("mutation", "runtime.agentTests.saveSuite", { id: agent.id, cases: [CASES[0]], rubric: "" }, { cookie });
    expect((await trpc("query", "runtime.agentTests.suite", { id: agent.id }, { cookie })).body.result.data).toEqual({
      cases: [CASES[0]],
      rubric: "",
    });
    // Saving cases is not a draft edit: the editor's autosave is not put in conflict by it.
    const item = await getDb().builderItem.findUniqueOrThrow({ where: { id: agent.id } });
    expect(item.updatedAt.toISOString()).toBe(agent.updatedAt);
  });

  it("refuses more than 10 cases or an oversized input with invalid_request, writing nothing", async () => {
    const tenant = await newOrganization();
    const flow = await create(tenant.orgKey.secret, "flows");
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const tooMany = Array.from({ length: 11 }, (_, i) => ({ input: `q${i}`, expectedBehavior: "" }));
    for (const input of [
      { id: flow.id, cases: tooMany, rubric: "" },
      { id: flow.id, cases: [{ input: "x".repeat(20_001), expectedBehavior: "" }], rubric: "" },
      { id: flow.id, cases: [], rubric: "r".repeat(10_001) },
    ]) {
      const refused = await trpc("mutation", "runtime.flowTests.saveSuite", input, { cookie });
      expect({ status: refused.status, code: trpcErrorCode(refused) }).toEqual({
        status: 400,
        code: "invalid_request",
      });
    }
    expect((await trpc("query", "runtime.flowTests.suite", { id: flow.id }, { cookie })).body.result.data).toEqual({
      cases: [],
      rubric: "",
    });
  });

  it("answers not_found for another organization's item and leaves its cases alone", async () => {
    const owner = await newOrganization();
    const other = await newOrganization();
    const app = await create(owner.orgKey.secret, "apps");
    const ownerCookie = await signInCookie(owner.owner.email, owner.owner.password);
    await trpc(
      "mutation",
      "runtime.appTests.saveSuite",
      { id: app.id, cases: CASES, rubric: "" },
      { cookie: ownerCookie },
    );
    const cookie = await signInCookie(other.owner.email, other.owner.password);
    for (const [kind, procedure, input] of [
      ["query", "runtime.appTests.suite", { id: app.id }],
      ["mutation", "runtime.appTests.saveSuite", { id: app.id, cases: [], rubric: "" }],
      ["query", "runtime.agentTests.suite", { id: app.id }],
    ] as const) {
      expect(trpcErrorCode(await trpc(kind, procedure, input, { cookie }))).toBe("not_found");
    }
    expect(
      (await trpc("query", "runtime.appTests.suite", { id: app.id }, { cookie: ownerCookie })).body.result.data.cases,
    ).toEqual(CASES);
  });
});
