// Provisioning fixtures made through the same services the CLI and console use.
import type { OperatorActor } from "@/server/auth/actor";
import { getDb } from "@/server/db";
import { createPortal } from "@/server/services/portals";
import { createTierPlan } from "@/server/services/tier-plans";
import { createUserGroup } from "@/server/services/user-groups";
import { uniqueSuffix } from "./helpers";

export async function newPlan(operator: OperatorActor, options: { credits?: number; withGroup?: boolean; name?: string } = {}) {
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
    db.groupMember.findMany({ where: { group: { organizationId } }, orderBy: [{ groupId: "asc" }, { endUserId: "asc" }] }),
  ]);
  return { endUsers, subscriptions, grants, memberships };
}

export function email(): string {
  return `person-${uniqueSuffix()}@example.test`;
}
