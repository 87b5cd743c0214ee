// Provisioning fixtures made through the same services the CLI and console use.
import type { OperatorActor } from "@/server/auth/actor";
import { getDb } from "@/server/db";
import { createPortal } from "@/server/services/portal/portals";
import { createTierPlan } from "@/server/services/provisioning/tier-plans";
import { createUserGroup } from "@/server/services/provisioning/user-groups";
import { api, uniqueSuffix } from "./helpers";
import { publishedApp, type PublishedApp } from "./runtime-helpers";

export async function newPlan(
  operator: OperatorActor,
  options: { credits?: number; withGroup?: boolean; name?: string } = {},
) {
  return createTierPlan(getDb(), operator, {
    name: options.name ?? `Plan ${uniqueSuffix()}`,
    creditAllowance: options.credits ?? 100,
    withGroup: options.withGroup ?? false,
  });
}

export async function newGroup(operator: OperatorActor, name = `Group ${uniqueSuffix()}`) {
  return createUserGroup(getDb(), operator, { name });
}

export async function newPortal(operator: OperatorActor, name = `Portal ${uniqueSuffix()}`) {
  return createPortal(getDb(), operator, { name });
}

/** Everything provisioning writes for an organization, to assert that a refusal wrote nothing. */
export async function provisioningSnapshot(organizationId: string) {
  const db = getDb();
  const [endUsers, subscriptions, grants, memberships] = await Promise.all([
    db.endUser.findMany({ where: { organizationId }, orderBy: { id: "asc" } }),
    db.subscription.findMany({ where: { endUser: { organizationId } }, orderBy: { id: "asc" } }),
    db.grant.findMany({ where: { organizationId }, orderBy: { id: "asc" } }),
    db.groupMember.findMany({
      where: { group: { organizationId } },
      orderBy: [{ groupId: "asc" }, { endUserId: "asc" }],
    }),
  ]);
  return { endUsers, subscriptions, grants, memberships };
}

export function email(): string {
  return `person-${uniqueSuffix()}@example.test`;
}

/** A published app in an organization with two portals, for the access rule's tests. */
export interface AccessWorld extends PublishedApp {
  org: string;
  helpCenter: string;
  partners: string;
}

export async function accessWorld(): Promise<AccessWorld> {
  const app = await publishedApp();
  const portal = async (name: string) =>
    (await api("POST", "/portals", { key: app.key, body: { name } })).body.portal.id as string;
  return {
    ...app,
    org: app.tenant.organization.id,
    helpCenter: await portal("Help Center"),
    partners: await portal("Partners"),
  };
}

/** An end user provisioned over REST, with whatever plans and grants `body` gives. */
export async function accessEndUser(w: AccessWorld, body: Record<string, unknown> = {}): Promise<string> {
  const response = await api("POST", "/end-users", {
    key: w.key,
    body: { email: `eu-${uniqueSuffix()}@customer.example`, ...body },
  });
  if (response.status !== 201) throw new Error(`${response.status} ${response.text}`);
  return response.body.endUser.id;
}

/** A group of `members` with grants to the world's app (each grant's fields over a plain app grant). */
export async function accessGroup(
  w: AccessWorld,
  members: string[],
  grants: Record<string, unknown>[] = [],
  name = `Group ${uniqueSuffix()}`,
): Promise<string> {
  const id = (await api("POST", "/user-groups", { key: w.key, body: { name } })).body.userGroup.id as string;
  for (const endUserId of members) {
    const added = await api("POST", `/user-groups/${id}/members`, { key: w.key, body: { endUserId } });
    if (added.status !== 201) throw new Error(`${added.status} ${added.text}`);
  }
  for (const grant of grants) {
    const granted = await api("POST", `/user-groups/${id}/grants`, {
      key: w.key,
      body: { targetKind: "app", targetId: w.appId, ...grant },
    });
    if (granted.status !== 201) throw new Error(`${granted.status} ${granted.text}`);
  }
  return id;
}
