// The audit log as an administrator and their tools see it: who changed what through which door
// (request id, address, before and after), sign-ins and failed sign-ins, filters and cursors,
// the streamed export, the audit:read scope, and a log the database itself keeps append-only.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { consoleAuditExportRoute } from "@/server/http/api-routes";
import { startWebhookWorker } from "@/server/jobs/webhook-delivery";
import { AUDIT_SWEEP_EVERY_MS, sweepAuditEvents, sweepAuditEventsWhenDue } from "@/server/services/org/audit-log";
import { addPerson, api, expectError, issueKey, newOrganization, signInCookie, toApiResponse, trpc } from "../helpers";
import { email, newPlan } from "../provisioning-helpers";

async function auditEvents(key: string, query = "") {
  const response = await api("GET", `/audit-events${query}`, { key });
  expect(response.status).toBe(200);
  return response.body.auditEvents as any[];
}

describe("GET /audit-events", () => {
  it("shows an API change with its key, door, request id, address and before/after", async () => {
    const tenant = await newOrganization();
    const created = await api("POST", "/end-users", {
      key: tenant.orgKey.secret,
      body: { email: email(), fullName: "Alice" },
    });
    const endUserId = created.body.endUser.id;
    const patched = await api("PATCH", `/end-users/${endUserId}`, {
      key: tenant.orgKey.secret,
      body: { fullName: "Alice Liddell" },
      headers: { "x-request-id": "crm-sync-42", "user-agent": "crm/1.0", "x-forwarded-for": "203.0.113.9" },
    });
    expect(patched.status).toBe(200);

    const [event] = await auditEvents(tenant.orgKey.secret, `?targetId=${endUserId}&action=end_user.update`);
    expect(event).toMatchObject({
      actor: { type: "org_key", id: tenant.orgKey.id, label: "organization key" },
      door: "api",
      action: "end_user.update",
      target: { type: "end_user", id: endUserId },
      changes: { fullName: ["Alice", "Alice Liddell"] },
      requestId: "crm-sync-42",
      userAgent: "crm/1.0",
      outcome: "success",
    });
    expect(event.ipAddress).toEqual(expect.any(String));
    const all = await auditEvents(tenant.orgKey.secret, `?targetId=${endUserId}`);
    expect(all.map((e) => e.action)).toEqual(["end_user.update", "end_user.create"]);
  });

  it("records console sign-ins and failed sign-ins with the address, and nothing for an unknown email", async () => {
    const tenant = await newOrganization();
    const bob = await addPerson(tenant.operator, "member");
    const failed = await trpc("mutation", "auth.signIn", { email: bob.email, password: "wrong password" });
    expect(failed.status).toBe(401);
    const ok = await trpc("mutation", "auth.signIn", { email: bob.email, password: bob.password });
    expect(ok.status).toBe(200);
    await trpc("mutation", "auth.signIn", { email: `nobody-${Date.now()}@example.test`, password: "x" });

    const events = await auditEvents(tenant.orgKey.secret, `?action=member.sign_in&actorId=${bob.member.id}`);
    expect(events.map((e) => [e.outcome, e.door, e.actor.label])).toEqual([
      ["success", "console", bob.email],
      ["failure", "console", bob.email],
    ]);
  });

  it("filters by door, action prefix and time, and pages newest first with cursors", async () => {
    const tenant = await newOrganization();
    for (let i = 0; i < 5; i++) await newPlan(tenant.operator);
    const plans = await auditEvents(tenant.orgKey.secret, "?action=tier_plan.&door=cli");
    expect(plans).toHaveLength(5);
    const first = await api("GET", "/audit-events?action=tier_plan.create&limit=2", { key: tenant.orgKey.secret });
    const second = await api("GET", `/audit-events?action=tier_plan.create&limit=2&cursor=${first.body.nextCursor}`, {
      key: tenant.orgKey.secret,
    });
    const third = await api("GET", `/audit-events?action=tier_plan.create&limit=2&cursor=${second.body.nextCursor}`, {
      key: tenant.orgKey.secret,
    });
    const ids = [...first.body.auditEvents, ...second.body.auditEvents, ...third.body.auditEvents].map(
      (e: any) => e.id,
    );
    expect(ids).toEqual(plans.map((e) => e.id));
    expect(third.body.nextCursor).toBeNull();
    expect(
      await auditEvents(
        tenant.orgKey.secret,
        `?action=tier_plan.create&from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      ),
    ).toEqual([]);
    // Another organization sees none of it.
    const other = await newOrganization();
    expect(await auditEvents(other.orgKey.secret, "?action=tier_plan.")).toEqual([]);
  });

  it("needs audit:read, and admin for a personal key", async () => {
    const tenant = await newOrganization();
    const noScope = await issueKey(tenant.operator, { kind: "organization", scopes: ["end_users:read"] });
    expectError(await api("GET", "/audit-events", { key: noScope.secret }), 403, "insufficient_scope");
    const member = await addPerson(tenant.operator, "member");
    const memberKey = await issueKey(tenant.operator, {
      kind: "personal",
      memberId: member.member.id,
      scopes: ["audit:read"],
    });
    expectError(await api("GET", "/audit-events", { key: memberKey.secret }), 403, "forbidden_role");
    expect((await api("GET", "/audit-events", { key: tenant.personalKey.secret })).status).toBe(200);
  });

  it("records nothing when the change is refused", async () => {
    const tenant = await newOrganization();
    const refused = await api("POST", "/end-users", {
      key: tenant.orgKey.secret,
      body: { email: email(), tierPlanIds: ["00000000-0000-4000-8000-000000000000"] },
    });
    expect(refused.status).toBe(422);
    expect(await auditEvents(tenant.orgKey.secret, "?action=end_user.")).toEqual([]);
  });
});

describe("GET /audit-events/export", () => {
  it("streams JSON Lines and CSV with a header, every matching event", async () => {
    const tenant = await newOrganization();
    for (let i = 0; i < 3; i++) await newPlan(tenant.operator, { name: i === 0 ? "=HYPERLINK(evil)" : undefined });
    const jsonl = await api("GET", "/audit-events/export?format=jsonl", { key: tenant.orgKey.secret });
    expect(jsonl.status).toBe(200);
    expect(jsonl.headers.get("content-type")).toBe("application/x-ndjson");
    const lines = jsonl.text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const listed = await auditEvents(tenant.orgKey.secret, "?limit=200");
    expect(lines.map((e) => e.id)).toEqual(listed.map((e) => e.id));

    const csv = await api("GET", "/audit-events/export?format=csv", { key: tenant.orgKey.secret });
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const rows = csv.text.trim().split("\r\n");
    expect(rows[0]).toBe(
      "id,occurredAt,actorType,actorId,actorLabel,door,action,targetType,targetId,targetLabel,changes,requestId,ipAddress,userAgent,outcome",
    );
    expect(rows).toHaveLength(listed.length + 1);
    // A cell a spreadsheet would run as a formula is defused.
    expect(csv.text).toContain(",'=HYPERLINK(evil),");
  });

  it("needs audit:read", async () => {
    const tenant = await newOrganization();
    const noScope = await issueKey(tenant.operator, { kind: "organization", scopes: ["end_users:read"] });
    expectError(await api("GET", "/audit-events/export", { key: noScope.secret }), 403, "insufficient_scope");
  });
});

describe("append-only", () => {
  it("the database refuses UPDATE, DELETE and TRUNCATE of events; the retention sweep alone deletes, past the organization's retention", async () => {
    const tenant = await newOrganization();
    await newPlan(tenant.operator);
    const db = getDb();
    const organizationId = tenant.organization.id;
    await expect(
      db.$executeRaw`update audit_events set action = 'forged' where organization_id = ${organizationId}::uuid`,
    ).rejects.toThrow(/append-only/);
    await expect(
      db.$executeRaw`delete from audit_events where organization_id = ${organizationId}::uuid`,
    ).rejects.toThrow(/append-only/);
    await expect(db.$executeRaw`truncate audit_events`).rejects.toThrow(/append-only/);
    const before = await db.auditEvent.count({ where: { organizationId } });
    expect(before).toBeGreaterThan(0);

    // An event older than the retention goes with the sweep; the others stay.
    await db.$transaction([
      db.$executeRaw`alter table audit_events disable trigger audit_events_append_only`,
      db.$executeRaw`update audit_events set occurred_at = now() - interval '400 days' where id = (select id from audit_events where organization_id = ${organizationId}::uuid order by occurred_at limit 1)`,
      db.$executeRaw`alter table audit_events enable trigger audit_events_append_only`,
    ]);
    await sweepAuditEvents(db);
    expect(await db.auditEvent.count({ where: { organizationId } })).toBe(before - 1);
  });

  it("is swept on a schedule by the worker, once per period however many processes ask", async () => {
    const tenant = await newOrganization();
    const db = getDb();
    const organizationId = tenant.organization.id;
    const old = () =>
      db.auditEvent.create({
        data: {
          organizationId,
          occurredAt: new Date(Date.now() - 400 * 86_400_000),
          actorType: "system",
          actorLabel: "Atrium",
          door: "system",
          action: "test.old",
          targetType: "test",
          targetLabel: "",
        },
      });
    await old();
    // Far from any other test's clock: the schedule is one row for the whole installation.
    const day = new Date(Date.now() + 1_000 * 86_400_000);
    const racing = await Promise.all([
      sweepAuditEventsWhenDue(db, day),
      sweepAuditEventsWhenDue(db, day),
      sweepAuditEventsWhenDue(db, day),
    ]);
    expect(racing.filter((swept) => swept !== null)).toHaveLength(1);
    expect(await db.auditEvent.count({ where: { organizationId, action: "test.old" } })).toBe(0);

    await old();
    expect(await sweepAuditEventsWhenDue(db, new Date(day.getTime() + AUDIT_SWEEP_EVERY_MS / 2))).toBeNull();
    expect(await db.auditEvent.count({ where: { organizationId, action: "test.old" } })).toBe(1);
    expect(await sweepAuditEventsWhenDue(db, new Date(day.getTime() + AUDIT_SWEEP_EVERY_MS))).toBeGreaterThanOrEqual(1);
    expect(await db.auditEvent.count({ where: { organizationId, action: "test.old" } })).toBe(0);

    // The worker each process runs asks on its own.
    await old();
    const worker = startWebhookWorker(db, {
      now: () => new Date(day.getTime() + 3 * AUDIT_SWEEP_EVERY_MS),
      pollMs: 20,
    });
    try {
      await expect
        .poll(() => db.auditEvent.count({ where: { organizationId, action: "test.old" } }), { timeout: 10_000 })
        .toBe(0);
    } finally {
      await worker.stop();
    }
  });
});

describe("the console's export", () => {
  const exportAs = async (cookie: string | null, query: string, headers: Record<string, string> = {}) =>
    toApiResponse(
      await consoleAuditExportRoute(
        new Request(`http://localhost/api/console/audit-events/export?${query}`, {
          headers: { ...(cookie ? { cookie } : {}), ...headers },
        }),
      ),
    );

  it("streams the events the filters on screen select, as CSV or JSON Lines, for an admin", async () => {
    const tenant = await newOrganization();
    const alice = (
      await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email(), fullName: "Alice" } })
    ).body.endUser;
    await api("PATCH", `/end-users/${alice.id}`, { key: tenant.orgKey.secret, body: { fullName: "Alice L." } });
    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);

    const csv = await exportAs(cookie, `format=csv&targetId=${alice.id}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const rows = csv.text.trim().split("\r\n");
    expect(rows[0]).toMatch(/^id,occurredAt,/);
    expect(rows.slice(1).map((row) => row.split(",")[6])).toEqual(["end_user.update", "end_user.create"]);

    const jsonl = await exportAs(cookie, `format=jsonl&action=end_user.update&targetId=${alice.id}`);
    expect(
      jsonl.text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).action),
    ).toEqual(["end_user.update"]);
  });

  it("refuses without a session, a member who is not an admin, and another site", async () => {
    const tenant = await newOrganization();
    const member = await addPerson(tenant.operator, "member");
    expectError(await exportAs(null, "format=csv"), 401, "unauthorized");
    expectError(await exportAs(await signInCookie(member.email, member.password), "format=csv"), 403, "forbidden_role");
    const owner = await signInCookie(tenant.owner.email, tenant.owner.password);
    expectError(await exportAs(owner, "format=csv", { "sec-fetch-site": "cross-site" }), 403, "cross_origin_request");
  });
});
