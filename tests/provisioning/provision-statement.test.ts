// POST /end-users is the call an external system makes for every customer it syncs (issue 36:
// ≥ 500 a second at a million end users). Its checks and its write are one statement: these
// tests pin that it is one round trip, planned once per connection, and that its answers, the
// rows it stores and the audit events it records are those of a check followed by a write, for
// new, known, concurrent and refused emails.
import { describe, expect, it } from "vitest";
import { closeDb, createDb, getDb, type Db } from "@/server/db";
import { provisionEndUser, provisionOn } from "@/server/services/provisioning/end-users";
import { api, expectError, newOrganization, type Tenant } from "../helpers";
import { email, newGroup, newPlan, newPortal, provisioningSnapshot } from "../provisioning-helpers";
import { publishedApp } from "../runtime-helpers";

/** A client of one connection whose statements (their text or name) are listed in `sent`. */
function countingDb(): { db: Db; sent: string[] } {
  const db = createDb(process.env.DATABASE_URL!, 1);
  const sent: string[] = [];
  db.pool.on("connect", (client) => {
    const send = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const first = args[0] as { name?: string; text?: string } | string;
      sent.push(typeof first === "string" ? first : (first.name ?? first.text ?? ""));
      return send(...args);
    };
  });
  return { db, sent };
}

async function eventsOf(organizationId: string, targetId?: string) {
  const { rows } = await getDb().pool.query(
    `select action, target_type, target_id, target_label, actor_type, door, changes, webhook_type, data
     from audit_events where organization_id = $1 and ($2::text is null or target_id = $2) order by occurred_at, action`,
    [organizationId, targetId ?? null],
  );
  return rows;
}

async function stored(endUserId: string) {
  const db = getDb();
  const [endUser, subscriptions, memberships, grants] = await Promise.all([
    db.endUser.findUniqueOrThrow({ where: { id: endUserId } }),
    db.subscription.findMany({ where: { endUserId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    db.groupMember.findMany({ where: { endUserId }, orderBy: { groupId: "asc" } }),
    db.grant.findMany({ where: { endUserId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
  ]);
  return { endUser, subscriptions, memberships, grants };
}

/** An organization with a plan, a plan with its group, a group, an app and a portal. */
async function world() {
  const app = await publishedApp();
  const tenant: Tenant = app.tenant;
  return {
    tenant,
    key: app.key,
    basic: (await newPlan(tenant.operator, { credits: 10 })).tierPlan,
    pro: await newPlan(tenant.operator, { credits: 20, withGroup: true }),
    team: await newGroup(tenant.operator),
    appId: app.appId,
    portal: await newPortal(tenant.operator),
  };
}

describe("provisioning in one statement", () => {
  it("sends one statement per call, planned once per connection", async () => {
    const tenant = await newOrganization();
    const { tierPlan } = await newPlan(tenant.operator);
    const group = await newGroup(tenant.operator);
    const { db, sent } = countingDb();
    try {
      const known = email();
      for (let call = 0; call < 10; call++) {
        const before = sent.length;
        await provisionEndUser(db, tenant.operator, {
          email: call % 2 ? known : email(),
          tierPlanIds: [tierPlan.id],
          groupIds: [group.id],
        });
        expect(sent.length - before).toBe(1);
      }
      // The generic plan is kept after PostgreSQL's first five custom ones: not planned per call.
      const { rows } = await db.pool.query<{ generic_plans: string; custom_plans: string }>(
        "select generic_plans, custom_plans from pg_prepared_statements where name = $1",
        [sent[0]],
      );
      expect(Number(rows[0]!.custom_plans)).toBeLessThanOrEqual(5);
      expect(Number(rows[0]!.generic_plans)).toBeGreaterThanOrEqual(5);
    } finally {
      await closeDb(db);
    }
  });

  it("reads an account's subscriptions by its id however much the table grew after planning", async () => {
    // PostgreSQL keeps the plan it makes at a connection's sixth call, here while the table is
    // nearly empty as in a new installation's first sync, until autovacuum next analyzes the
    // table; the table grows under it. A plan that scanned the table cost every call a read of
    // every subscription in the database (BENCHMARKS.md, 2026-12-07).
    const tenant = await newOrganization();
    const [first, second] = [(await newPlan(tenant.operator)).tierPlan, (await newPlan(tenant.operator)).tierPlan];
    const db = createDb(process.env.DATABASE_URL!, 1);
    const client = await db.pool.connect();
    const subscriptionScans = async () =>
      Number(
        (
          await client.query<{ seq_scan: string }>(
            "select seq_scan from pg_stat_xact_user_tables where relname = 'subscriptions'",
          )
        ).rows[0]!.seq_scan,
      );
    try {
      const known = email();
      for (const address of [known, email(), email(), email(), email(), email()])
        await provisionOn(client, tenant.operator, { email: address, tierPlanIds: [first.id] });
      const crowd = await newOrganization();
      const crowdPlan = (await newPlan(crowd.operator)).tierPlan;
      await client.query(
        `with people as (
           insert into end_users (id, organization_id, email, created_at, updated_at)
           select gen_random_uuid(), $1, 'crowd' || n || '@example.test', now(), now() from generate_series(1, 3000) n
           returning id
         )
         insert into subscriptions (id, end_user_id, tier_plan_id, status, credit_allowance, credits_reset_at, provisioned_by, updated_at)
         select gen_random_uuid(), id, $2, 'active', 10, now(), 'api', now() from people`,
        [crowd.organization.id, crowdPlan.id],
      );

      await client.query("begin");
      const before = await subscriptionScans();
      const { result } = await provisionOn(client, tenant.operator, { email: known, tierPlanIds: [second.id] });
      const scans = (await subscriptionScans()) - before;
      await client.query("commit");
      expect(result.subscriptions.map((s) => s.tierPlanId).sort()).toEqual([first.id, second.id].sort());
      expect(scans).toBe(0);
      const { rows } = await client.query<{ generic_plans: string }>(
        "select generic_plans from pg_prepared_statements where name = 'atrium_provision'",
      );
      expect(Number(rows[0]!.generic_plans)).toBeGreaterThan(0);
    } finally {
      client.release();
      await closeDb(db);
    }
  });

  it("creates a new email with its plans, groups and grants, and records the events", async () => {
    const w = await world();
    const address = email();
    const response = await api("POST", "/end-users", {
      key: w.key,
      body: {
        email: address,
        fullName: "Ada Lovelace",
        tierPlanIds: [w.basic.id, w.pro.tierPlan.id],
        groupIds: [w.team.id],
        grants: [
          { targetKind: "app", targetId: w.appId },
          { targetKind: "app", targetId: w.appId, deploymentId: w.portal.id },
        ],
      },
    });
    expect(response.status).toBe(201);
    const id = response.body.endUser.id;
    expect(response.body).toEqual({
      endUser: { id, email: address, fullName: "Ada Lovelace", createdAt: expect.any(String) },
      created: true,
      // Made together, the two subscriptions come in the order of their ids.
      subscriptions: expect.arrayContaining([
        expect.objectContaining({ tierPlanId: w.basic.id, tierPlanName: w.basic.name, creditAllowance: 10 }),
        expect.objectContaining({
          tierPlanId: w.pro.tierPlan.id,
          tierPlanName: w.pro.tierPlan.name,
          creditAllowance: 20,
        }),
      ]),
      grantsCreated: 2,
    });
    expect(response.body.subscriptions).toHaveLength(2);

    const rows = await stored(id);
    expect(rows.endUser).toMatchObject({ email: address, fullName: "Ada Lovelace", revokedAt: null, deletedAt: null });
    expect(rows.endUser.createdAt.toISOString()).toBe(response.body.endUser.createdAt);
    expect(rows.subscriptions.map((s) => [s.id, s.tierPlanId, s.status, s.provisionedBy, s.isComped])).toEqual(
      response.body.subscriptions.map((s: { id: string; tierPlanId: string }) => [
        s.id,
        s.tierPlanId,
        "active",
        "api",
        true,
      ]),
    );
    expect(rows.memberships.map((m) => m.groupId).sort()).toEqual([w.team.id, w.pro.group!.id].sort());
    expect(rows.grants.map((g) => [g.targetId, g.effect, g.deploymentId, g.source])).toEqual(
      expect.arrayContaining([
        [w.appId, "allow", null, "api"],
        [w.appId, "allow", w.portal.id, "api"],
      ]),
    );

    const events = await eventsOf(w.tenant.organization.id);
    const create = events.find((e) => e.action === "end_user.create");
    expect(create).toMatchObject({
      target_type: "end_user",
      target_id: id,
      target_label: address,
      actor_type: "org_key",
      door: "api",
      webhook_type: "end_user.created",
      data: {
        id,
        email: address,
        fullName: "Ada Lovelace",
        authMethod: rows.endUser.authMethod,
        emailVerifiedAt: null,
        revokedAt: null,
        lastSeenAt: null,
        createdAt: response.body.endUser.createdAt,
      },
    });
    expect(Object.keys(create.changes).sort()).toEqual(["fullName", "grants", "groupIds", "tierPlanIds"]);
    expect(create.changes.tierPlanIds).toEqual([null, [w.basic.id, w.pro.tierPlan.id].sort()]);
    // The plan's own group joins with it.
    expect(create.changes.groupIds).toEqual([null, [w.team.id, w.pro.group!.id].sort()]);
    const subscriptionEvents = events.filter((e) => e.action === "subscription.create");
    expect(subscriptionEvents.map((e) => e.target_id).sort()).toEqual(rows.subscriptions.map((s) => s.id).sort());
    expect(subscriptionEvents[0]).toMatchObject({ webhook_type: "subscription.created", target_label: address });
  });

  it("updates a known email in place: new plans and grants only, an event only for a change, a revoked account restored", async () => {
    const w = await world();
    const address = email();
    const first = await api("POST", "/end-users", {
      key: w.key,
      body: {
        email: address,
        fullName: "Ada",
        tierPlanIds: [w.basic.id],
        grants: [{ targetKind: "app", targetId: w.appId }],
      },
    });
    const id = first.body.endUser.id;
    await api("POST", `/end-users/${id}/revoke`, { key: w.key });

    const again = await api("POST", "/end-users", {
      key: w.key,
      body: {
        email: address.toUpperCase(),
        tierPlanIds: [w.pro.tierPlan.id, w.basic.id],
        groupIds: [w.team.id],
        grants: [
          { targetKind: "app", targetId: w.appId },
          { targetKind: "app", targetId: w.appId, deploymentId: w.portal.id },
        ],
      },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({
      endUser: { id, email: address, fullName: "Ada", createdAt: first.body.endUser.createdAt },
      created: false,
      subscriptions: [first.body.subscriptions[0], expect.objectContaining({ tierPlanId: w.pro.tierPlan.id })],
      grantsCreated: 1,
    });
    const rows = await stored(id);
    expect(rows.endUser.revokedAt).toBeNull();
    expect(rows.subscriptions).toHaveLength(2);
    expect(rows.grants).toHaveLength(2);

    // Nothing new: still 200, and no event (nothing changed, so nothing is announced).
    const same = await api("POST", "/end-users", { key: w.key, body: { email: address, tierPlanIds: [w.basic.id] } });
    expect(same.status).toBe(200);
    expect(same.body.grantsCreated).toBe(0);
    expect(same.body.subscriptions).toEqual(again.body.subscriptions);
    expect(await stored(id)).toMatchObject({ subscriptions: rows.subscriptions, grants: rows.grants });

    const events = (await eventsOf(w.tenant.organization.id)).filter((e) => e.action.startsWith("end_user."));
    expect(events.map((e) => [e.action, e.webhook_type])).toEqual([
      ["end_user.create", "end_user.created"],
      ["end_user.revoke", "end_user.updated"],
      ["end_user.update", "end_user.updated"],
    ]);
    expect(events[2].data).toMatchObject({ id, revokedAt: null, fullName: "Ada" });
    const subscriptionEvents = (await eventsOf(w.tenant.organization.id)).filter(
      (e) => e.action === "subscription.create",
    );
    expect(subscriptionEvents).toHaveLength(2);
  });

  it("makes one account from concurrent calls for one new email, with one create event", async () => {
    const w = await world();
    const address = email();
    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        api("POST", "/end-users", {
          key: w.key,
          body: { email: address, tierPlanIds: [w.basic.id], grants: [{ targetKind: "app", targetId: w.appId }] },
        }),
      ),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(responses.reduce((sum, r) => sum + r.body.grantsCreated, 0)).toBe(1);
    const id = responses[0]!.body.endUser.id;
    const rows = await stored(id);
    expect(rows.subscriptions).toHaveLength(1);
    expect(rows.grants).toHaveLength(1);
    const events = await eventsOf(w.tenant.organization.id, id);
    expect(events.filter((e) => e.action === "end_user.create")).toHaveLength(1);
    // The other seven changed nothing: the account was already as they asked.
    expect(events.filter((e) => e.action === "end_user.update")).toHaveLength(0);
  });

  it("writes nothing and records nothing when a check refuses, whichever check it is", async () => {
    const w = await world();
    const known = email();
    await api("POST", "/end-users", { key: w.key, body: { email: known } });
    const before = await provisioningSnapshot(w.tenant.organization.id);
    const eventsBefore = await eventsOf(w.tenant.organization.id);
    const missing = "00000000-0000-4000-8000-000000000000";
    const refused = [
      [{ tierPlanIds: [w.basic.id, missing] }, 422, "tier_not_found"],
      // Ids are compared as the API gives them out (lower case), as the checks always did.
      [{ tierPlanIds: [w.basic.id.toUpperCase()] }, 422, "tier_not_found"],
      [{ groupIds: [w.team.id, missing] }, 422, "group_not_found"],
      [{ groupIds: [w.pro.group!.id] }, 422, "plan_group"],
      [{ grants: [{ targetKind: "app", targetId: missing }] }, 422, "grant_target_not_found"],
      [{ grants: [{ targetKind: "app", targetId: w.appId, deploymentId: missing }] }, 422, "grant_target_not_found"],
    ] as const;
    for (const [body, status, code] of refused) {
      for (const address of [known, email()]) {
        expectError(await api("POST", "/end-users", { key: w.key, body: { email: address, ...body } }), status, code);
      }
    }
    expect(await provisioningSnapshot(w.tenant.organization.id)).toEqual(before);
    expect(await eventsOf(w.tenant.organization.id)).toEqual(eventsBefore);
  });
});
