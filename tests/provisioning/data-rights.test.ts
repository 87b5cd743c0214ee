// An end user's data rights (issue 48): GET /end-users/{id}/export hands over everything held
// about them, POST /end-users/{id}/erase deletes their content and replaces their name and
// address everywhere with a tombstone while what their runs cost stays; the export is then empty
// of the person, usage totals are unchanged, and the address provisions a new end user. A walk of
// the Prisma schema fails when a table that references an end user is not covered by both.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { DATA_RIGHTS_COVERAGE, tombstoneEmail } from "@/server/services/provisioning/end-user-data";
import { createConsoleEndUserExportHandler } from "@/server/adapters/console";
import { addPerson, api, expectError, issueKey, signInCookie, toApiResponse } from "../helpers";
import { portalScenario } from "../portal/helpers";

const root = path.resolve(import.meta.dirname, "../..");

/** The models of the Prisma schema with a field that names an end user (a relation or an `endUserId`). */
function modelsReferencingEndUsers(): string[] {
  const schema = readFileSync(path.join(root, "prisma/schema.prisma"), "utf8");
  const models: string[] = [];
  for (const block of schema.split(/^model /m).slice(1)) {
    const name = block.slice(0, block.indexOf(" "));
    const fields = block
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/));
    if (fields.some(([field, type]) => field === "endUserId" || type === "EndUser" || type === "EndUser?"))
      models.push(name);
  }
  return models;
}

describe("an end user's data rights", () => {
  it("covers every table that references an end user in both the export and the erasure", () => {
    const models = modelsReferencingEndUsers();
    expect(models.length).toBeGreaterThan(8);
    const uncovered = models.filter((model) => !Object.hasOwn(DATA_RIGHTS_COVERAGE, model));
    expect(uncovered, "tables naming an end user without an export and erasure rule").toEqual([]);
  });

  it("exports everything, erases it keeping the numbers, and forgets the address", async () => {
    const scenario = await portalScenario();
    const { key, endUser } = scenario;
    const message = "My order 1234 for Alice Example was damaged, when are refunds paid?";
    const turn = await api("POST", `/apps/${scenario.appId}/conversation`, {
      key,
      body: { message, endUserId: endUser.id, portalId: scenario.portal.id },
    });
    expect(turn.status).toBe(200);
    const renamed = await api("PATCH", `/end-users/${endUser.id}`, { key, body: { fullName: "Alice Example" } });
    expect(renamed.status).toBe(200);
    // The run waits for a person (a flow's approval node): what it asks holds the end user's words.
    const waiting = await getDb().execution.findFirstOrThrow({ where: { endUserId: endUser.id } });
    await getDb().execution.update({
      where: { id: waiting.id, organizationId: scenario.tenant.organization.id },
      data: { status: "awaiting_approval" },
    });
    await getDb().executionApproval.create({
      data: {
        id: waiting.id,
        organizationId: scenario.tenant.organization.id,
        kind: "conversation",
        appId: scenario.appId,
        flowId: scenario.appId,
        nodeId: "refund",
        message: "Refund order 1234 of Alice Example?",
        expiresAt: new Date(Date.now() + 3_600_000),
        state: { message },
      },
    });

    const exported = await api("GET", `/end-users/${endUser.id}/export`, { key });
    expect(exported.status).toBe(200);
    const document = exported.body;
    expect(document.endUser).toMatchObject({ id: endUser.id, email: endUser.email, fullName: "Alice Example" });
    expect(document.endUser.subscriptions).toHaveLength(1);
    expect(document.endUser.grants).toHaveLength(1);
    expect(document.conversations).toHaveLength(1);
    expect(document.conversations[0].messages.map((m: { content: string }) => m.content)).toContain(message);
    expect(document.executions).toHaveLength(1);
    expect(document.executions[0].input).toContain("order 1234");
    expect(document.approvals).toEqual([
      expect.objectContaining({
        executionId: waiting.id,
        message: "Refund order 1234 of Alice Example?",
        status: "pending",
      }),
    ]);
    expect(document.auditEvents.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(["end_user.create", "end_user.update"]),
    );
    expect(JSON.stringify(document)).not.toMatch(/token_?hash|code_?hash/i);

    const usageBefore = await api("GET", "/usage", { key });
    const executionBefore = await getDb().execution.findFirstOrThrow({ where: { endUserId: endUser.id } });

    const erased = await api("POST", `/end-users/${endUser.id}/erase`, { key });
    expect(erased.status).toBe(200);
    expect(erased.body).toEqual({ endUser: { id: endUser.id, erasedAt: expect.any(String) } });
    // Idempotent: the same answer, nothing more recorded.
    const again = await api("POST", `/end-users/${endUser.id}/erase`, { key });
    expect(again.body).toEqual(erased.body);
    expect(
      await getDb().auditEvent.count({
        where: { organizationId: scenario.tenant.organization.id, action: "end_user.erase" },
      }),
    ).toBe(1);

    // Nothing the person wrote or was called is left anywhere in the organization's data.
    const db = getDb();
    const row = await db.endUser.findUniqueOrThrow({ where: { id: endUser.id } });
    expect(row).toMatchObject({ email: tombstoneEmail(endUser.id), fullName: "" });
    expect(await db.conversation.count({ where: { endUserId: endUser.id } })).toBe(0);
    const execution = await db.execution.findUniqueOrThrow({ where: { id: executionBefore.id } });
    expect(execution).toMatchObject({ input: "", output: "", credits: executionBefore.credits, status: "failed" });
    expect(await db.executionApproval.count({ where: { id: waiting.id } })).toBe(0);
    expect(execution.usage).toEqual(executionBefore.usage);
    const events = await db.auditEvent.findMany({ where: { organizationId: scenario.tenant.organization.id } });
    const everything = JSON.stringify(events);
    expect(everything).not.toContain(endUser.email);
    expect(everything).not.toContain("Alice Example");
    expect(await db.outboxMessage.count({ where: { to: endUser.email } })).toBe(0);
    const usageAfter = await api("GET", "/usage", { key });
    expect(usageAfter.body.totals).toEqual(usageBefore.body.totals);

    // The end user is gone from the API, and the address provisions a new one.
    expectError(await api("GET", `/end-users/${endUser.id}`, { key }), 404, "not_found");
    expectError(await api("GET", `/end-users/${endUser.id}/export`, { key }), 404, "not_found");
    const reprovisioned = await api("POST", "/end-users", { key, body: { email: endUser.email } });
    expect(reprovisioned.status).toBe(201);
    expect(reprovisioned.body.created).toBe(true);
    expect(reprovisioned.body.endUser.id).not.toBe(endUser.id);
  });

  it("needs the end users' scopes, and an admin behind a personal key; other organizations get 404", async () => {
    const scenario = await portalScenario();
    const other = await portalScenario();
    const readOnly = await issueKey(scenario.tenant.operator, { kind: "organization", scopes: ["end_users:read"] });
    expectError(
      await api("POST", `/end-users/${scenario.endUser.id}/erase`, { key: readOnly.secret }),
      403,
      "insufficient_scope",
    );
    const member = await addPerson(scenario.tenant.operator, "member");
    const memberKey = await issueKey(scenario.tenant.operator, { kind: "personal", memberId: member.member.id });
    expectError(
      await api("GET", `/end-users/${scenario.endUser.id}/export`, { key: memberKey.secret }),
      403,
      "forbidden_role",
    );
    expectError(await api("POST", `/end-users/${other.endUser.id}/erase`, { key: scenario.key }), 404, "not_found");
    expect((await getDb().endUser.findUniqueOrThrow({ where: { id: other.endUser.id } })).erasedAt).toBeNull();
  });

  it("streams the same document to an admin's console, and refuses a member and a signed-out browser", async () => {
    const scenario = await portalScenario();
    const handler = createConsoleEndUserExportHandler({ db: getDb });
    const download = async (cookie?: string) =>
      toApiResponse(
        await handler(
          new Request(`http://localhost/api/console/end-users/${scenario.endUser.id}/export`, {
            headers: cookie ? { cookie } : {},
          }),
          scenario.endUser.id,
        ),
      );
    const owner = await signInCookie(scenario.tenant.owner.email, scenario.tenant.owner.password);
    const byConsole = await download(owner);
    expect(byConsole.status).toBe(200);
    expect(byConsole.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(byConsole.headers.get("content-disposition")).toBe(
      `attachment; filename="end-user-${scenario.endUser.id}.json"`,
    );
    const byApi = await api("GET", `/end-users/${scenario.endUser.id}/export`, { key: scenario.key });
    expect({ ...byConsole.body, exportedAt: null, auditEvents: null }).toEqual({
      ...byApi.body,
      exportedAt: null,
      auditEvents: null,
    });
    const member = await addPerson(scenario.tenant.operator, "member");
    const refused = await download(await signInCookie(member.email, member.password));
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain(scenario.endUser.email);
    expect((await download()).body.error.code).toBe("unauthorized");
  });
});
