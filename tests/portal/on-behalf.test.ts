// The API on behalf of an end user: `endUserId` (and `portalId`) on conversation and
// transaction, refusals in the contract's order, conversations owned by the end user.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { openApiDocument } from "@/server/openapi";
import { create, publish } from "../builder-helpers";
import { api } from "../helpers";
import { readEvents } from "../runtime-helpers";
import { portalScenario, type PortalScenario } from "./helpers";

const NOBODY = "00000000-0000-4000-8000-000000000000";

function converse(scenario: PortalScenario, body: Record<string, unknown>, appId = scenario.appId) {
  return api("POST", `/apps/${appId}/conversation`, { key: scenario.key, body });
}

async function balances(scenario: PortalScenario) {
  const db = getDb();
  const organization = await db.organization.findUniqueOrThrow({ where: { id: scenario.tenant.organization.id } });
  const pool = await db.subscription.findFirstOrThrow({ where: { endUserId: scenario.endUser.id } });
  const executions = await db.execution.count({ where: { organizationId: scenario.tenant.organization.id } });
  return { organization: organization.credits, pool: pool.creditsUsed, executions };
}

describe("POST /apps/{id}/conversation on behalf of an end user", () => {
  it("runs as the end user: billed to her pool and the organization, recorded with her and the portal", async () => {
    const scenario = await portalScenario({ credits: 5 });
    const before = await balances(scenario);
    const response = await converse(scenario, {
      message: "How long do refunds take?",
      endUserId: scenario.endUser.id,
      portalId: scenario.portal.id,
    });
    expect(response.status).toBe(200);
    expect(response.body.reply).toContain("14 days");
    const after = await balances(scenario);
    expect(after).toEqual({ organization: before.organization - 1, pool: 1, executions: 1 });
    const execution = await getDb().execution.findFirstOrThrow({
      where: { organizationId: scenario.tenant.organization.id },
    });
    expect(execution).toMatchObject({ endUserId: scenario.endUser.id, portalId: scenario.portal.id });
    const conversation = await getDb().conversation.findUniqueOrThrow({ where: { id: response.body.conversation_id } });
    expect(conversation.endUserId).toBe(scenario.endUser.id);

    // The executions log filters by her and by the portal.
    const byEndUser = await api("GET", `/executions?endUserId=${scenario.endUser.id}`, { key: scenario.key });
    expect(byEndUser.body.executions).toHaveLength(1);
    expect(byEndUser.body.executions[0]).toMatchObject({
      endUserId: scenario.endUser.id,
      endUserEmail: scenario.endUser.email,
      portalId: scenario.portal.id,
      portalName: "Help Center",
    });
    const byPortal = await api("GET", `/executions?portalId=${scenario.portal.id}`, { key: scenario.key });
    expect(byPortal.body.executions).toHaveLength(1);
    const byOther = await api("GET", `/executions?endUserId=${NOBODY}`, { key: scenario.key });
    expect(byOther.body.executions).toEqual([]);
  });

  it("refuses in order: the app, then the end user, then credits; nothing runs or is charged", async () => {
    const scenario = await portalScenario({ credits: 1 });
    const unknownApp = await converse(scenario, { message: "Hi", endUserId: NOBODY }, NOBODY);
    expect([unknownApp.status, unknownApp.body.error.code]).toEqual([404, "not_found"]);

    // service_disabled comes before the end user is looked at.
    const closed = await create(scenario.key, "apps", {
      name: "Closed",
      members: [{ id: scenario.supportAgentId, kind: "agent" }],
      api: { conversationEnabled: false },
    });
    await publish(scenario.key, "apps", closed.id);
    const disabled = await converse(scenario, { message: "Hi", endUserId: NOBODY }, closed.id);
    expect([disabled.status, disabled.body.error.code]).toEqual([403, "service_disabled"]);

    const before = await balances(scenario);
    const unknownUser = await converse(scenario, { message: "Hi", endUserId: NOBODY });
    expect([unknownUser.status, unknownUser.body.error.code]).toEqual([404, "not_found"]);

    const elsewhere = await portalScenario();
    const foreignUser = await converse(scenario, { message: "Hi", endUserId: elsewhere.endUser.id });
    expect(foreignUser.status).toBe(404);
    const foreignPortal = await converse(scenario, {
      message: "Hi",
      endUserId: scenario.endUser.id,
      portalId: elsewhere.portal.id,
    });
    expect(foreignPortal.status).toBe(404);

    // Her grant is limited to Help Center: without a portal she has no access.
    const noPortal = await converse(scenario, { message: "Hi", endUserId: scenario.endUser.id });
    expect([noPortal.status, noPortal.body.error.code]).toEqual([404, "not_found"]);

    const portalOnly = await converse(scenario, { message: "Hi", portalId: scenario.portal.id });
    expect([portalOnly.status, portalOnly.body.error.code]).toEqual([400, "invalid_request"]);
    expect(await balances(scenario)).toEqual(before);

    expect(
      (await converse(scenario, { message: "Hi", endUserId: scenario.endUser.id, portalId: scenario.portal.id }))
        .status,
    ).toBe(200);
    const spent = await balances(scenario);
    const broke = await converse(scenario, {
      message: "Hi",
      endUserId: scenario.endUser.id,
      portalId: scenario.portal.id,
    });
    expect([broke.status, broke.body.error.code]).toEqual([402, "insufficient_credits"]);
    expect(await balances(scenario)).toEqual(spent);

    // A revoked end user is not_found, before credits.
    await api("POST", `/end-users/${scenario.endUser.id}/revoke`, { key: scenario.key });
    const revoked = await converse(scenario, {
      message: "Hi",
      endUserId: scenario.endUser.id,
      portalId: scenario.portal.id,
    });
    expect([revoked.status, revoked.body.error.code]).toEqual([404, "not_found"]);
  });

  it("a conversation belongs to its end user: another end user's or the organization's conversation_id is not_found", async () => {
    const scenario = await portalScenario();
    const bob = await api("POST", "/end-users", {
      key: scenario.key,
      body: {
        email: `bob-${scenario.endUser.email}`,
        tierPlanIds: [scenario.plan.id],
        grants: [{ targetKind: "app", targetId: scenario.appId }],
      },
    });
    const hers = await converse(scenario, {
      message: "Mine",
      endUserId: scenario.endUser.id,
      portalId: scenario.portal.id,
    });
    const organizations = await converse(scenario, { message: "Ours" });
    expect(organizations.status).toBe(200);

    const before = await balances(scenario);
    const bobOnHers = await converse(scenario, {
      message: "Hi",
      endUserId: bob.body.endUser.id,
      conversation_id: hers.body.conversation_id,
    });
    expect([bobOnHers.status, bobOnHers.body.error.code]).toEqual([404, "not_found"]);
    const herOnOrgs = await converse(scenario, {
      message: "Hi",
      endUserId: scenario.endUser.id,
      portalId: scenario.portal.id,
      conversation_id: organizations.body.conversation_id,
    });
    expect(herOnOrgs.status).toBe(404);
    const orgOnHers = await converse(scenario, { message: "Hi", conversation_id: hers.body.conversation_id });
    expect(orgOnHers.status).toBe(404);
    expect(await balances(scenario)).toEqual(before);

    const continued = await converse(scenario, {
      message: "Again",
      endUserId: scenario.endUser.id,
      portalId: scenario.portal.id,
      conversation_id: hers.body.conversation_id,
    });
    expect(continued.status).toBe(200);
    expect(continued.body.conversation_id).toBe(hers.body.conversation_id);
  });

  it("streams on behalf of an end user too, with the same refusals before the stream", async () => {
    const scenario = await portalScenario();
    const request = new Request(`http://localhost/api/v1/apps/${scenario.appId}/conversation`, {
      method: "POST",
      headers: { authorization: `Bearer ${scenario.key}`, "content-type": "application/json" },
      body: JSON.stringify({
        message: "Refunds?",
        stream: true,
        endUserId: scenario.endUser.id,
        portalId: scenario.portal.id,
      }),
    });
    const { restHandler } = await import("../helpers");
    const response = await restHandler()(request);
    expect(response.status).toBe(200);
    const done = (await readEvents(response)).find((e) => e.event === "done");
    const conversationId = JSON.parse(done!.data).conversation_id;
    expect((await getDb().conversation.findUniqueOrThrow({ where: { id: conversationId } })).endUserId).toBe(
      scenario.endUser.id,
    );
    const refused = await api("POST", `/apps/${scenario.appId}/conversation`, {
      key: scenario.key,
      body: { message: "Hi", stream: true, endUserId: scenario.endUser.id },
    });
    expect(refused.status).toBe(404);
  });
});

describe("POST /apps/{id}/transaction on behalf of an end user", () => {
  it("runs as the end user, billed to her pool; refuses an unknown end user before the input, and 402 when her pool is empty", async () => {
    const scenario = await portalScenario({ credits: 1 });
    const app = await create(scenario.key, "apps", {
      name: "Classifier",
      members: [{ id: scenario.supportAgentId, kind: "agent" }],
      api: {
        transactionEnabled: true,
        inputSchema: { type: "object", required: ["text"], properties: { text: { type: "string" } } },
      },
    });
    await publish(scenario.key, "apps", app.id);
    await api("POST", "/end-users", {
      key: scenario.key,
      body: { email: scenario.endUser.email, grants: [{ targetKind: "app", targetId: app.id }] },
    });
    const transact = (body: Record<string, unknown>) =>
      api("POST", `/apps/${app.id}/transaction`, { key: scenario.key, body });

    const before = await balances(scenario);
    const unknown = await transact({ input: {}, endUserId: NOBODY });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "not_found"]);
    const badInput = await transact({ input: {}, endUserId: scenario.endUser.id });
    expect([badInput.status, badInput.body.error.code]).toEqual([400, "invalid_request"]);
    expect(await balances(scenario)).toEqual(before);

    const ok = await transact({ input: { text: "hello" }, endUserId: scenario.endUser.id });
    expect(ok.status).toBe(200);
    const execution = await getDb().execution.findUniqueOrThrow({ where: { id: ok.body.executionId } });
    expect(execution).toMatchObject({ endUserId: scenario.endUser.id, portalId: null, kind: "transaction" });
    expect((await balances(scenario)).pool).toBe(1);

    const broke = await transact({ input: { text: "again" }, endUserId: scenario.endUser.id });
    expect([broke.status, broke.body.error.code]).toEqual([402, "insufficient_credits"]);
  });
});

describe("OpenAPI", () => {
  it("documents endUserId and portalId on conversation and transaction, and the executions filters", () => {
    const document = openApiDocument() as any;
    for (const path of ["/apps/{appId}/conversation", "/apps/{appId}/transaction"]) {
      const schema = document.paths[path].post.requestBody.content["application/json"].schema;
      const properties = schema.properties ?? document.components.schemas[schema.$ref?.split("/").pop()]?.properties;
      expect(Object.keys(properties), path).toEqual(expect.arrayContaining(["endUserId", "portalId"]));
    }
    const parameters = document.paths["/executions"].get.parameters.map((p: { name: string }) => p.name);
    expect(parameters).toEqual(expect.arrayContaining(["endUserId", "portalId"]));
  });
});
