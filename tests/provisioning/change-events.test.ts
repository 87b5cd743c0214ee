// Provisioning writes record and announce real changes only. For each write path the table
// below runs the same write twice against a fresh organization listening for every webhook:
// the first records exactly the events named, each with the fields that changed and their true
// before and after, and queues one delivery per announced event; the second changes nothing, so
// it records no event and queues no delivery.
import { describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
});

import { getDb } from "@/server/db";
import { createItem } from "@/server/services/builder/builder";
import { linkProcessorSubscription } from "@/server/services/provisioning/end-user-subscriptions";
import { archiveTierPlan, updateTierPlan } from "@/server/services/provisioning/tier-plans";
import { api, newOrganization, type Tenant } from "../helpers";
import { email, newGroup, newPlan } from "../provisioning-helpers";

interface Expected {
  action: string;
  changes: Record<string, [unknown, unknown]>;
  webhookType: string | null;
}

interface Case {
  name: string;
  /** Makes what the write acts on; answers what `write` and `expected` read. */
  setup: (tenant: Tenant) => Promise<Record<string, string>>;
  write: (tenant: Tenant, ids: Record<string, string>) => Promise<unknown>;
  expected: (ids: Record<string, string>) => Expected[];
}

async function upsert(tenant: Tenant, body: Record<string, unknown>) {
  const response = await api("POST", "/end-users", { key: tenant.orgKey.secret, body });
  expect(response.status, response.text).toBeLessThan(300);
  return response.body;
}

async function endUserWith(tenant: Tenant, body: Record<string, unknown> = {}) {
  const address = email();
  const { endUser } = await upsert(tenant, { email: address, ...body });
  return { address, endUserId: endUser.id as string };
}

const sorted = (...ids: string[]) => [...ids].sort();

const CASES: Case[] = [
  {
    name: "POST /end-users with what the account already has",
    setup: async (tenant) => {
      const { tierPlan } = await newPlan(tenant.operator);
      return { planId: tierPlan.id, ...(await endUserWith(tenant, { fullName: "Ada", tierPlanIds: [tierPlan.id] })) };
    },
    write: (tenant, ids) => upsert(tenant, { email: ids.address, fullName: "Ada", tierPlanIds: [ids.planId] }),
    expected: (): Expected[] => [],
  },
  {
    name: "POST /end-users renaming an account",
    setup: (tenant) => endUserWith(tenant, { fullName: "Old Name" }),
    write: (tenant, ids) => upsert(tenant, { email: ids.address, fullName: "New Name" }),
    expected: (): Expected[] => [
      { action: "end_user.update", changes: { fullName: ["Old Name", "New Name"] }, webhookType: "end_user.updated" },
    ],
  },
  {
    name: "POST /end-users restoring a revoked account",
    setup: async (tenant) => {
      const ids = await endUserWith(tenant);
      const revoked = await api("POST", `/end-users/${ids.endUserId}/revoke`, { key: tenant.orgKey.secret });
      return { ...ids, revokedAt: revoked.body.endUser.revokedAt };
    },
    write: (tenant, ids) => upsert(tenant, { email: ids.address }),
    expected: (ids): Expected[] => [
      { action: "end_user.update", changes: { revokedAt: [ids.revokedAt, null] }, webhookType: "end_user.updated" },
    ],
  },
  {
    name: "POST /end-users adding a plan",
    setup: async (tenant) => {
      const first = (await newPlan(tenant.operator, { credits: 10 })).tierPlan.id;
      const second = (await newPlan(tenant.operator, { credits: 20 })).tierPlan.id;
      return { first, second, ...(await endUserWith(tenant, { tierPlanIds: [first] })) };
    },
    write: (tenant, ids) => upsert(tenant, { email: ids.address, tierPlanIds: [ids.first, ids.second] }),
    expected: (ids): Expected[] => [
      {
        action: "end_user.update",
        changes: { tierPlanIds: [[ids.first], sorted(ids.first!, ids.second!)] },
        webhookType: "end_user.updated",
      },
      {
        action: "subscription.create",
        changes: { tierPlanId: [null, ids.second], status: [null, "active"], creditAllowance: [null, 20] },
        webhookType: "subscription.created",
      },
    ],
  },
  {
    name: "POST /end-users adding a group",
    setup: async (tenant) => {
      const first = (await newGroup(tenant.operator)).id;
      const second = (await newGroup(tenant.operator)).id;
      return { first, second, ...(await endUserWith(tenant, { groupIds: [first] })) };
    },
    write: (tenant, ids) => upsert(tenant, { email: ids.address, groupIds: [ids.second] }),
    expected: (ids): Expected[] => [
      {
        action: "end_user.update",
        changes: { groupIds: [[ids.first], sorted(ids.first!, ids.second!)] },
        webhookType: "end_user.updated",
      },
    ],
  },
  {
    name: "POST /end-users renewing a canceled subscription",
    setup: async (tenant) => {
      const planId = (await newPlan(tenant.operator, { credits: 10 })).tierPlan.id;
      const ids = await endUserWith(tenant, { tierPlanIds: [planId] });
      await api("DELETE", `/end-users/${ids.endUserId}/tier-plans/${planId}`, { key: tenant.orgKey.secret });
      return { planId, ...ids };
    },
    write: (tenant, ids) => upsert(tenant, { email: ids.address, tierPlanIds: [ids.planId] }),
    expected: (ids): Expected[] => [
      {
        action: "end_user.update",
        changes: { tierPlanIds: [[], [ids.planId]] },
        webhookType: "end_user.updated",
      },
      {
        action: "subscription.create",
        changes: { status: ["canceled", "active"] },
        webhookType: "subscription.created",
      },
    ],
  },
  {
    name: "POST /end-users adding a grant",
    setup: async (tenant) => {
      const appId = (await createItem(getDb(), tenant.operator, "app", { name: "Helpdesk" })).id as string;
      return { appId, ...(await endUserWith(tenant)) };
    },
    write: (tenant, ids) =>
      upsert(tenant, { email: ids.address, grants: [{ targetKind: "app", targetId: ids.appId }] }),
    expected: (ids): Expected[] => [
      {
        action: "end_user.update",
        changes: {
          grants: [
            [],
            [{ targetKind: "app", targetId: ids.appId, effect: "allow", deploymentId: null, expiresAt: null }],
          ],
        },
        webhookType: "end_user.updated",
      },
    ],
  },
  {
    name: "PATCH /end-users/{id}",
    setup: (tenant) => endUserWith(tenant, { fullName: "Old Name" }),
    write: (tenant, ids) =>
      api("PATCH", `/end-users/${ids.endUserId}`, { key: tenant.orgKey.secret, body: { fullName: "New Name" } }),
    expected: (): Expected[] => [
      { action: "end_user.update", changes: { fullName: ["Old Name", "New Name"] }, webhookType: "end_user.updated" },
    ],
  },
  {
    name: "POST /end-users/{id}/revoke",
    setup: (tenant) => endUserWith(tenant),
    write: (tenant, ids) => api("POST", `/end-users/${ids.endUserId}/revoke`, { key: tenant.orgKey.secret }),
    expected: (): Expected[] => [
      {
        action: "end_user.revoke",
        changes: { revokedAt: [null, expect.any(String)] },
        webhookType: "end_user.updated",
      },
    ],
  },
  {
    name: "DELETE /end-users/{id}/tier-plans/{tierPlanId}",
    setup: async (tenant) => {
      const planId = (await newPlan(tenant.operator)).tierPlan.id;
      return { planId, ...(await endUserWith(tenant, { tierPlanIds: [planId] })) };
    },
    write: (tenant, ids) =>
      api("DELETE", `/end-users/${ids.endUserId}/tier-plans/${ids.planId}`, { key: tenant.orgKey.secret }),
    expected: (): Expected[] => [
      {
        action: "subscription.cancel",
        changes: { status: ["active", "canceled"] },
        webhookType: "subscription.canceled",
      },
    ],
  },
  {
    name: "linking a subscription to the payment processor (CLI)",
    setup: async (tenant) => {
      const planId = (await newPlan(tenant.operator)).tierPlan.id;
      return { planId, ...(await endUserWith(tenant, { tierPlanIds: [planId] })) };
    },
    write: (tenant, ids) =>
      linkProcessorSubscription(getDb(), tenant.operator, { endUserId: ids.endUserId!, tierPlanId: ids.planId! }),
    expected: (): Expected[] => [
      {
        action: "subscription.link",
        changes: { provisionedBy: ["api", "processor"], isComped: [true, false] },
        webhookType: null,
      },
    ],
  },
  {
    name: "PATCH /user-groups/{id}",
    setup: async (tenant) => ({ groupId: (await newGroup(tenant.operator, "Testers")).id }),
    write: (tenant, ids) =>
      api("PATCH", `/user-groups/${ids.groupId}`, {
        key: tenant.orgKey.secret,
        body: { name: "Testers", description: "Early access" },
      }),
    expected: (): Expected[] => [
      { action: "user_group.update", changes: { description: ["", "Early access"] }, webhookType: null },
    ],
  },
  {
    name: "POST /user-groups/{id}/members",
    setup: async (tenant) => ({ groupId: (await newGroup(tenant.operator)).id, ...(await endUserWith(tenant)) }),
    write: (tenant, ids) =>
      api("POST", `/user-groups/${ids.groupId}/members`, {
        key: tenant.orgKey.secret,
        body: { endUserId: ids.endUserId },
      }),
    expected: (ids): Expected[] => [
      { action: "user_group.member_add", changes: { members: [null, ids.endUserId] }, webhookType: null },
    ],
  },
  {
    name: "updating a tier plan (console)",
    setup: async (tenant) => ({ planId: (await newPlan(tenant.operator, { name: "Gold", credits: 5 })).tierPlan.id }),
    write: (tenant, ids) =>
      updateTierPlan(getDb(), tenant.operator, { tierPlanId: ids.planId!, name: "Gold", creditAllowance: 7 }),
    expected: (): Expected[] => [
      { action: "tier_plan.update", changes: { creditAllowance: [5, 7] }, webhookType: null },
    ],
  },
  {
    name: "archiving a tier plan (console)",
    setup: async (tenant) => ({ planId: (await newPlan(tenant.operator)).tierPlan.id }),
    write: (tenant, ids) => archiveTierPlan(getDb(), tenant.operator, { tierPlanId: ids.planId! }),
    expected: (): Expected[] => [
      { action: "tier_plan.archive", changes: { archivedAt: [null, expect.any(String)] }, webhookType: null },
    ],
  },
];

/** The organization's events not among `seen`, by action. */
async function newEvents(organizationId: string, seen: Set<string>) {
  const events = await getDb().auditEvent.findMany({ where: { organizationId } });
  return events
    .filter((event) => !seen.has(event.id))
    .map((event) => ({ action: event.action, changes: event.changes, webhookType: event.webhookType }))
    .sort((a, b) => a.action.localeCompare(b.action));
}

async function eventIds(organizationId: string) {
  return new Set((await getDb().auditEvent.findMany({ where: { organizationId } })).map((event) => event.id));
}

async function deliveriesOf(organizationId: string) {
  return getDb().webhookDelivery.count({ where: { organizationId } });
}

describe("provisioning writes record and announce real changes only", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_, c) => {
    const tenant = await newOrganization({ settings: { groupsEnabled: true } });
    const organizationId = tenant.organization.id;
    const endpoint = await api("POST", "/webhook-endpoints", {
      key: tenant.orgKey.secret,
      body: { url: "http://127.0.0.1:9/hook", eventTypes: ["*"] },
    });
    expect(endpoint.status).toBe(201);
    const ids = await c.setup(tenant);

    const beforeFirst = await eventIds(organizationId);
    const deliveriesBefore = await deliveriesOf(organizationId);
    await c.write(tenant, ids);
    const expected = c.expected(ids);
    expect(await newEvents(organizationId, beforeFirst)).toEqual(expected);
    expect(await deliveriesOf(organizationId)).toBe(
      deliveriesBefore + expected.filter((event) => event.webhookType).length,
    );

    const beforeSecond = await eventIds(organizationId);
    const deliveriesAfterFirst = await deliveriesOf(organizationId);
    await c.write(tenant, ids);
    expect(await newEvents(organizationId, beforeSecond)).toEqual([]);
    expect(await deliveriesOf(organizationId)).toBe(deliveriesAfterFirst);
  });
});
