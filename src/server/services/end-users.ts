// End users: provisioning (idempotent on email, all-or-nothing), profile, revocation and
// deletion, subscriptions with their credit pools, and per-user grants.
import type {
  EndUser,
  EndUserDetail,
  GrantInput,
  ProvisionEndUserInput,
  ProvisionEndUserOutput,
  Subscription,
  SubscriptionDetail,
} from "@/schemas/provisioning";
import type { Actor } from "@/server/auth/actor";
import { authorize } from "@/server/auth/authorize";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import { assertGrantTargets, grantSource, insertGrants, toGrant } from "./grants";
import { normalizeEmail } from "./members";
import { afterCursor, CURSOR_ORDER, toPage } from "./pagination";

type Tx = Prisma.TransactionClient;

type EndUserRow = {
  id: string;
  email: string;
  fullName: string;
  authMethod: string;
  emailVerifiedAt: Date | null;
  revokedAt: Date | null;
  lastSeenAt: Date | null;
  createdAt: Date;
};

type SubscriptionRow = {
  id: string;
  tierPlanId: string;
  status: "active" | "canceled";
  creditAllowance: number;
  creditsUsed: number;
  creditsResetAt: Date;
  provisionedBy: "api" | "console" | "processor";
  isComped: boolean;
  bonusCredits: number;
  tierPlan: { name: string };
};

export function toEndUser(row: EndUserRow): EndUser {
  return {
    id: row.id,
    email: row.email,
    fullName: row.fullName,
    authMethod: row.authMethod,
    emailVerifiedAt: row.emailVerifiedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    tierPlanId: row.tierPlanId,
    tierPlanName: row.tierPlan.name,
    status: row.status,
    creditAllowance: row.creditAllowance,
    creditsUsed: row.creditsUsed,
    creditsResetAt: row.creditsResetAt.toISOString(),
  };
}

function toSubscriptionDetail(row: SubscriptionRow): SubscriptionDetail {
  return { ...toSubscription(row), provisionedBy: row.provisionedBy, isComped: row.isComped, bonusCredits: row.bonusCredits };
}

/** Credit pools renew a month after they start. */
function creditsResetFrom(start: Date): Date {
  const reset = new Date(start);
  reset.setUTCMonth(reset.getUTCMonth() + 1);
  return reset;
}

function provisionedBy(actor: Actor): "api" | "console" {
  return actor.kind === "key" ? "api" : "console";
}

const subscriptionSelect = {
  id: true,
  tierPlanId: true,
  status: true,
  creditAllowance: true,
  creditsUsed: true,
  creditsResetAt: true,
  provisionedBy: true,
  isComped: true,
  bonusCredits: true,
  tierPlan: { select: { name: true } },
} as const;

function grantKey(grant: Pick<GrantInput, "targetKind" | "targetId" | "deploymentId">): string {
  return `${grant.targetKind}:${grant.targetId}:${grant.deploymentId ?? ""}`;
}

/**
 * Subscribes the user to plans: new subscriptions, or canceled ones made active again with a
 * fresh credit pool; active ones are left as they are. The plans' own groups follow.
 */
async function subscribe(
  tx: Tx,
  endUserId: string,
  plans: readonly { id: string; creditAllowance: number; groupId: string | null }[],
  by: "api" | "console" | "processor",
): Promise<void> {
  if (plans.length === 0) return;
  const now = new Date();
  const pool = { status: "active" as const, creditsUsed: 0, creditsResetAt: creditsResetFrom(now), provisionedBy: by, isComped: by !== "processor" };
  await tx.subscription.createMany({
    data: plans.map((plan) => ({ endUserId, tierPlanId: plan.id, creditAllowance: plan.creditAllowance, ...pool })),
    skipDuplicates: true,
  });
  for (const plan of plans) {
    await tx.subscription.updateMany({
      where: { endUserId, tierPlanId: plan.id, status: "canceled" },
      data: { ...pool, creditAllowance: plan.creditAllowance },
    });
  }
  const planGroups = plans.flatMap((plan) => (plan.groupId ? [{ groupId: plan.groupId, endUserId }] : []));
  if (planGroups.length) await tx.groupMember.createMany({ data: planGroups, skipDuplicates: true });
}

/**
 * Creates or updates an end user by email with plans, groups and grants in one call. Every
 * refusal is decided before anything is written; the writes happen in one transaction, and
 * concurrent calls for one new email make one account (the unique email decides who creates).
 */
export async function provisionEndUser(db: Db, actor: Actor, input: ProvisionEndUserInput): Promise<ProvisionEndUserOutput> {
  authorize(actor, { scope: "end_users:write" });
  const organizationId = actor.organizationId;
  const email = normalizeEmail(input.email);
  const tierPlanIds = [...new Set(input.tierPlanIds ?? [])];
  const groupIds = [...new Set(input.groupIds ?? [])];
  const grants = [...new Map((input.grants ?? []).map((grant) => [grantKey(grant), grant])).values()];

  const [organization, existing, plans, groups] = await Promise.all([
    db.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { accessMode: true, groupsEnabled: true } }),
    db.endUser.findUnique({
      where: { organizationId_email: { organizationId, email } },
      select: { deletedAt: true, subscriptions: { where: { provisionedBy: "processor", status: "active" }, select: { tierPlanId: true } } },
    }),
    tierPlanIds.length
      ? db.tierPlan.findMany({ where: { organizationId, id: { in: tierPlanIds }, archivedAt: null }, select: { id: true, name: true, creditAllowance: true, groupId: true } })
      : [],
    groupIds.length ? db.userGroup.findMany({ where: { organizationId, id: { in: groupIds } }, select: { id: true, plan: { select: { id: true } } } }) : [],
  ]);

  if (existing?.deletedAt) throw new AppError("deleted_identity", `${email} belongs to a deleted account; it cannot be provisioned again.`);
  if (grants.length && organization.accessMode === "groups") {
    throw new AppError("grants_unsupported", "This organization manages access with groups: pass groupIds instead of grants.");
  }
  const missingPlan = tierPlanIds.find((id) => !plans.some((plan) => plan.id === id));
  if (missingPlan) throw new AppError("tier_not_found", `No live tier plan ${missingPlan} in this organization.`);
  if (groupIds.length && !organization.groupsEnabled) throw new AppError("groups_disabled", "User groups are not enabled for this organization.");
  const missingGroup = groupIds.find((id) => !groups.some((group) => group.id === id));
  if (missingGroup) throw new AppError("group_not_found", `No user group ${missingGroup} in this organization.`);
  const planGroup = groups.find((group) => group.plan);
  if (planGroup) {
    throw new AppError("plan_group", `Group ${planGroup.id} belongs to a plan and follows it: pass the plan in tierPlanIds instead.`);
  }
  await assertGrantTargets(db, organizationId, grants);
  const paid = existing?.subscriptions.find((subscription) => tierPlanIds.includes(subscription.tierPlanId));
  if (paid) {
    throw new AppError("live_paid_subscription", `${email} holds a live paid subscription on plan ${paid.tierPlanId}; cancel it at the payment processor first.`);
  }

  return db.$transaction(async (tx) => {
    const inserted = await tx.endUser.createManyAndReturn({
      data: [{ organizationId, email, fullName: input.fullName ?? "" }],
      skipDuplicates: true,
      select: { id: true },
    });
    const created = inserted.length > 0;
    let user = await tx.endUser.findUniqueOrThrow({ where: { organizationId_email: { organizationId, email } } });
    if (user.deletedAt) throw new AppError("deleted_identity", `${email} belongs to a deleted account; it cannot be provisioned again.`);
    if (!created && (user.revokedAt || (input.fullName !== undefined && input.fullName !== user.fullName))) {
      user = await tx.endUser.update({ where: { id: user.id }, data: { revokedAt: null, fullName: input.fullName ?? user.fullName } });
    }

    await subscribe(tx, user.id, plans, provisionedBy(actor));
    if (groupIds.length) await tx.groupMember.createMany({ data: groupIds.map((groupId) => ({ groupId, endUserId: user.id })), skipDuplicates: true });
    const grantsCreated = await insertGrants(tx, { organizationId, endUserId: user.id }, grants, grantSource(actor));
    const subscriptions = await tx.subscription.findMany({
      where: { endUserId: user.id, status: "active" },
      select: subscriptionSelect,
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return {
      endUser: { id: user.id, email: user.email, fullName: user.fullName, createdAt: user.createdAt.toISOString() },
      created,
      subscriptions: subscriptions.map(toSubscription),
      grantsCreated,
    };
  });
}

async function findEndUser(db: Db | Tx, actor: Actor, endUserId: string) {
  const user = await db.endUser.findFirst({ where: { id: endUserId, organizationId: actor.organizationId, deletedAt: null } });
  if (!user) throw new AppError("not_found", "No end user with that id.");
  return user;
}

export async function getEndUser(db: Db, actor: Actor, input: { endUserId: string }): Promise<EndUserDetail> {
  authorize(actor, { scope: "end_users:read" });
  const user = await findEndUser(db, actor, input.endUserId);
  const [subscriptions, grants] = await Promise.all([
    db.subscription.findMany({ where: { endUserId: user.id }, select: subscriptionSelect, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    db.grant.findMany({ where: { endUserId: user.id }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
  ]);
  return { ...toEndUser(user), subscriptions: subscriptions.map(toSubscriptionDetail), grants: grants.map(toGrant) };
}

export async function listEndUsers(db: Db, actor: Actor, input: { limit: number; cursor?: string; email?: string; query?: string }) {
  authorize(actor, { scope: "end_users:read" });
  const rows = await db.endUser.findMany({
    where: {
      organizationId: actor.organizationId,
      deletedAt: null,
      ...(input.email ? { email: normalizeEmail(input.email) } : {}),
      ...(input.query ? { email: { contains: input.query.trim(), mode: "insensitive" as const } } : {}),
      ...afterCursor(input.cursor),
    },
    orderBy: CURSOR_ORDER,
    take: input.limit + 1,
  });
  const page = toPage(rows, input.limit);
  return { endUsers: page.items.map(toEndUser), nextCursor: page.nextCursor };
}

export async function updateEndUser(db: Db, actor: Actor, input: { endUserId: string; fullName?: string }): Promise<EndUser> {
  authorize(actor, { scope: "end_users:write" });
  const user = await findEndUser(db, actor, input.endUserId);
  if (input.fullName === undefined) return toEndUser(user);
  return toEndUser(await db.endUser.update({ where: { id: user.id }, data: { fullName: input.fullName } }));
}

/** A revoked account loses access until it is provisioned again (POST /end-users restores it). */
export async function revokeEndUser(db: Db, actor: Actor, input: { endUserId: string }): Promise<EndUser> {
  authorize(actor, { scope: "end_users:write" });
  const user = await findEndUser(db, actor, input.endUserId);
  if (user.revokedAt) return toEndUser(user);
  return toEndUser(await db.endUser.update({ where: { id: user.id }, data: { revokedAt: new Date() } }));
}

/**
 * Marks the identity deleted: its subscriptions end, its grants and memberships go, its name is
 * forgotten, and the email can never be provisioned again (deleted_identity).
 */
export async function deleteEndUser(db: Db, actor: Actor, input: { endUserId: string }): Promise<void> {
  authorize(actor, { scope: "end_users:write", role: "admin" });
  const user = await findEndUser(db, actor, input.endUserId);
  await db.$transaction([
    db.subscription.updateMany({ where: { endUserId: user.id }, data: { status: "canceled" } }),
    db.grant.deleteMany({ where: { endUserId: user.id } }),
    db.groupMember.deleteMany({ where: { endUserId: user.id } }),
    db.endUser.update({ where: { id: user.id }, data: { deletedAt: new Date(), revokedAt: user.revokedAt ?? new Date(), fullName: "" } }),
  ]);
}

/** Ends a subscription; a plan paid at the processor must be canceled there. */
export async function removeSubscription(db: Db, actor: Actor, input: { endUserId: string; tierPlanId: string }): Promise<void> {
  authorize(actor, { scope: "end_users:write", role: "admin" });
  const user = await findEndUser(db, actor, input.endUserId);
  const subscription = await db.subscription.findFirst({
    where: { endUserId: user.id, tierPlanId: input.tierPlanId, status: "active" },
    include: { tierPlan: { select: { groupId: true } } },
  });
  if (!subscription) throw new AppError("not_found", "This end user holds no active subscription on that plan.");
  if (subscription.provisionedBy === "processor") {
    throw new AppError("live_paid_subscription", "This plan is paid at the payment processor; cancel it there first.");
  }
  await db.$transaction([
    db.subscription.update({ where: { id: subscription.id }, data: { status: "canceled" } }),
    ...(subscription.tierPlan.groupId ? [db.groupMember.deleteMany({ where: { groupId: subscription.tierPlan.groupId, endUserId: user.id } })] : []),
  ]);
}

export async function removeEndUserGrant(db: Db, actor: Actor, input: { endUserId: string; grantId: string }): Promise<void> {
  authorize(actor, { scope: "end_users:write", role: "admin" });
  const user = await findEndUser(db, actor, input.endUserId);
  const { count } = await db.grant.deleteMany({ where: { id: input.grantId, endUserId: user.id } });
  if (count === 0) throw new AppError("not_found", "No grant with that id on this end user.");
}

/** Records a live paid subscription at the payment processor (admin CLI `billing link`). */
export async function linkProcessorSubscription(db: Db, actor: Actor, input: { endUserId: string; tierPlanId: string }): Promise<SubscriptionDetail> {
  authorize(actor, { scope: "end_users:write", role: "admin" });
  const user = await findEndUser(db, actor, input.endUserId);
  const plan = await db.tierPlan.findFirst({ where: { id: input.tierPlanId, organizationId: actor.organizationId, archivedAt: null } });
  if (!plan) throw new AppError("tier_not_found", `No live tier plan ${input.tierPlanId} in this organization.`);
  return db.$transaction(async (tx) => {
    await tx.subscription.updateMany({
      where: { endUserId: user.id, tierPlanId: plan.id, status: "active" },
      data: { provisionedBy: "processor", isComped: false },
    });
    await subscribe(tx, user.id, [plan], "processor");
    const row = await tx.subscription.findUniqueOrThrow({ where: { endUserId_tierPlanId: { endUserId: user.id, tierPlanId: plan.id } }, select: subscriptionSelect });
    return toSubscriptionDetail(row);
  });
}
