import type { ListQuery } from "@/schemas/common";
import { COUNT_CAP } from "@/lib/digits";
import type { TierPlan, TierPlanIdInput, UpdateTierPlanInput } from "@/schemas/provisioning/provisioning";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { Prisma } from "@/generated/prisma/client";
import { BUILTIN_MODEL_ID, isAvailableModel } from "@/server/runtime/models";
import { changesBetween, recordEvent } from "../org/events";
import { oldestFirst } from "../support/pagination";
import { toUserGroup } from "./user-groups";

type PlanRow = {
  id: string;
  name: string;
  creditAllowance: number;
  allowedModels: unknown;
  description: string;
  priceAmount: number | null;
  priceCurrency: string;
  priceInterval: string;
  features: unknown;
  archivedAt: Date | null;
  groupId: string | null;
};

/** What a plan says about itself, as written on create and PATCH (absent: unchanged). */
type PlanDetails = Pick<
  UpdateTierPlanInput,
  "description" | "priceAmount" | "priceCurrency" | "priceInterval" | "features"
>;
const DETAIL_FIELDS = ["description", "priceAmount", "priceCurrency", "priceInterval", "features"] as const;

function featuresOf(row: { features: unknown }): string[] {
  return Array.isArray(row.features) ? (row.features as string[]) : [];
}

/** A plan's allowed models as stored: an array of ids, or null for every model. */
function allowedModelsOf(row: { allowedModels: unknown }): string[] | null {
  return Array.isArray(row.allowedModels) ? (row.allowedModels as string[]) : null;
}

export function toTierPlan(row: PlanRow): TierPlan {
  return {
    id: row.id,
    name: row.name,
    creditAllowance: row.creditAllowance,
    allowedModels: allowedModelsOf(row),
    description: row.description,
    priceAmount: row.priceAmount,
    priceCurrency: row.priceCurrency,
    priceInterval: row.priceInterval === "year" ? "year" : "month",
    features: featuresOf(row),
    archived: row.archivedAt !== null,
    groupId: row.groupId,
  };
}

/** The models a plan may name, each once: an id not in GET /models for the organization is invalid_model. */
async function checkedModels(db: Db, organizationId: string, models: string[] | null): Promise<string[] | null> {
  if (models === null) return null;
  const unique = [...new Set(models)];
  const unknown: string[] = [];
  for (const id of unique) if (!(await isAvailableModel(db, organizationId, id))) unknown.push(id);
  if (unknown.length)
    throw new AppError("invalid_model", `No model ${unknown.map((id) => `"${id}"`).join(", ")} in GET /models.`, {
      models: unknown,
    });
  return unique;
}

/** A JSON column's value: null stored as SQL NULL. */
function jsonOrNull(models: string[] | null) {
  return models === null ? Prisma.DbNull : models;
}

/** The plan as it is now, locked until the transaction ends (a write's true "before"). */
async function lockedPlan(tx: Prisma.TransactionClient, actor: Actor, tierPlanId: string) {
  await tx.$queryRaw`select 1 from tier_plans where id = ${tierPlanId}::uuid and organization_id = ${actor.organizationId}::uuid
    for no key update`;
  return tx.tierPlan.findFirstOrThrow({ where: { id: tierPlanId, organizationId: actor.organizationId } });
}

/** The refusal of a plan that is not a live (unarchived) plan of this organization. */
export function noLivePlan(tierPlanId: string): AppError {
  return new AppError("tier_not_found", `No live tier plan ${tierPlanId} in this organization.`);
}

/** A live plan of this organization, or nothing: an archived plan keeps its subscriptions but takes no new ones. */
export function findLivePlan(db: Db, organizationId: string, tierPlanId: string) {
  return db.tierPlan.findFirst({ where: { id: tierPlanId, organizationId, archivedAt: null } });
}

/** A live plan of this organization, refused with tier_not_found otherwise. */
export async function liveTierPlan(db: Db, organizationId: string, tierPlanId: string) {
  const plan = await findLivePlan(db, organizationId, tierPlanId);
  if (!plan) throw noLivePlan(tierPlanId);
  return plan;
}

function planTarget(plan: { id: string; name: string }) {
  return { type: "tier_plan", id: plan.id, label: plan.name };
}

export const listTierPlans = guarded(
  { scope: "end_users:read" },
  async function listTierPlans(db: Db, actor: Actor, input: ListQuery) {
    const page = await oldestFirst(input, (after, window) =>
      db.tierPlan.findMany({ where: { organizationId: actor.organizationId, ...after }, ...window }),
    );
    return { tierPlans: page.items.map(toTierPlan), nextCursor: page.nextCursor };
  },
);

/** A plan, optionally with its own group whose membership follows the plan's subscriptions. */
export const createTierPlan = guarded(
  { scope: "end_users:write", may: "grant" },
  async function createTierPlan(
    db: Db,
    actor: Actor,
    input: { name: string; creditAllowance: number; allowedModels?: string[] | null; withGroup: boolean } & PlanDetails,
  ) {
    const allowedModels = await checkedModels(db, actor.organizationId, input.allowedModels ?? null);
    return db.$transaction(async (tx) => {
      const group = input.withGroup
        ? await tx.userGroup.create({
            data: {
              organizationId: actor.organizationId,
              name: input.name,
              description: `Everyone on the ${input.name} plan`,
            },
          })
        : null;
      const plan = await tx.tierPlan.create({
        data: {
          organizationId: actor.organizationId,
          name: input.name,
          creditAllowance: input.creditAllowance,
          allowedModels: jsonOrNull(allowedModels),
          groupId: group?.id ?? null,
          description: input.description ?? "",
          priceAmount: input.priceAmount ?? null,
          priceCurrency: input.priceCurrency ?? "USD",
          priceInterval: input.priceInterval ?? "month",
          features: input.features ?? [],
        },
      });
      await recordEvent(tx, actor, {
        action: "tier_plan.create",
        target: planTarget(plan),
        changes: {
          name: [null, plan.name],
          creditAllowance: [null, plan.creditAllowance],
          ...(allowedModels ? { allowedModels: [null, allowedModels] } : {}),
          ...(plan.description ? { description: [null, plan.description] } : {}),
          ...(plan.priceAmount !== null
            ? { priceAmount: [null, plan.priceAmount], priceCurrency: [null, plan.priceCurrency] }
            : {}),
          ...(featuresOf(plan).length ? { features: [null, featuresOf(plan)] } : {}),
        },
      });
      return {
        tierPlan: toTierPlan(plan),
        ...(group ? { group: toUserGroup({ ...group, plan: { id: plan.id }, _count: { members: 0 } }) } : {}),
      };
    });
  },
);

/** An archived plan keeps its subscriptions but can no longer be assigned (tier_not_found). */
export const archiveTierPlan = guarded(
  { scope: "end_users:write", may: "grant" },
  async function archiveTierPlan(db: Db, actor: Actor, input: TierPlanIdInput): Promise<TierPlan> {
    const plan = await db.tierPlan.findFirst({ where: { id: input.tierPlanId, organizationId: actor.organizationId } });
    if (!plan) throw new AppError("not_found", "No tier plan with that id.");
    if (plan.archivedAt) return toTierPlan(plan);
    return db.$transaction(async (tx) => {
      const current = await lockedPlan(tx, actor, plan.id);
      if (current.archivedAt) return toTierPlan(current);
      const row = await tx.tierPlan.update({
        where: { id: plan.id, organizationId: actor.organizationId },
        data: { archivedAt: new Date() },
      });
      await recordEvent(tx, actor, {
        action: "tier_plan.archive",
        target: planTarget(row),
        changes: changesBetween(current, row, ["archivedAt"]),
      });
      return toTierPlan(row);
    });
  },
);

/**
 * Renames a plan (its own group follows, as that group cannot be renamed by itself), changes
 * its monthly credits, which apply at once to every active subscription's pool, or the models
 * its end users' runs may call (checked before each run: services/plan-models.ts).
 */
export const updateTierPlan = guarded(
  { scope: "end_users:write", may: "grant" },
  async function updateTierPlan(db: Db, actor: Actor, input: UpdateTierPlanInput): Promise<TierPlan> {
    const plan = await db.tierPlan.findFirst({ where: { id: input.tierPlanId, organizationId: actor.organizationId } });
    if (!plan) throw new AppError("not_found", "No tier plan with that id.");
    const allowedModels =
      input.allowedModels === undefined
        ? undefined
        : await checkedModels(db, actor.organizationId, input.allowedModels);
    return db.$transaction(async (tx) => {
      const current = await lockedPlan(tx, actor, plan.id);
      const changes = changesBetween(
        { ...current, allowedModels: allowedModelsOf(current), features: featuresOf(current) },
        {
          name: input.name,
          creditAllowance: input.creditAllowance,
          allowedModels,
          description: input.description,
          priceAmount: input.priceAmount,
          priceCurrency: input.priceCurrency,
          priceInterval: input.priceInterval,
          features: input.features,
        },
        ["name", "creditAllowance", "allowedModels", ...DETAIL_FIELDS],
      );
      // Nothing differs: nothing written, nothing recorded.
      if (Object.keys(changes).length === 0) return toTierPlan(current);
      const row = await tx.tierPlan.update({
        where: { id: plan.id, organizationId: actor.organizationId },
        data: {
          name: input.name,
          creditAllowance: input.creditAllowance,
          ...(allowedModels !== undefined ? { allowedModels: jsonOrNull(allowedModels) } : {}),
          description: input.description,
          priceAmount: input.priceAmount,
          priceCurrency: input.priceCurrency,
          priceInterval: input.priceInterval,
          features: input.features,
        },
      });
      await recordEvent(tx, actor, { action: "tier_plan.update", target: planTarget(row), changes });
      if (input.name !== undefined && plan.groupId) {
        await tx.userGroup.update({
          where: { id: plan.groupId, organizationId: actor.organizationId },
          data: { name: input.name, description: `Everyone on the ${input.name} plan` },
        });
      }
      if (input.creditAllowance !== undefined) {
        await tx.subscription.updateMany({
          where: { tierPlanId: plan.id, status: "active" },
          data: { creditAllowance: input.creditAllowance },
        });
      }
      return toTierPlan(row);
    });
  },
);

/**
 * The models of a run for an end user that none of their active plans allows (the built-in
 * model is always allowed): the run is refused with them, 403 model_not_in_plan, before anything
 * runs or is charged. An end user with no active plan has nothing to pay with: the charge says so.
 */
export async function assertModelsInPlans(
  db: Db,
  organizationId: string,
  endUserId: string,
  models: readonly string[],
): Promise<void> {
  const wanted = limitedModels(models);
  if (wanted.length === 0) return;
  const { rows } = await db.pool.query<{ model: string }>({
    name: "atrium_models_not_in_plans",
    text: `with plans as (
        select p.allowed_models from subscriptions s
        join end_users u on u.id = s.end_user_id
        join tier_plans p on p.id = s.tier_plan_id
        where s.end_user_id = $2::uuid and u.organization_id = $1::uuid and s.status = 'active'
      )
      select m as model from unnest($3::text[]) m
      where exists (select 1 from plans)
        and not exists (select 1 from plans where allowed_models is null or allowed_models ? m)`,
    values: [organizationId, endUserId, wanted],
  });
  if (rows.length === 0) return;
  const refused = rows.map((row) => row.model);
  throw new AppError(
    "model_not_in_plan",
    `Your plan does not include ${refused.length === 1 ? "the model" : "the models"} this app uses (${refused.join(", ")}); nothing was run or charged.`,
    { models: refused },
  );
}

/** The models a plan's allowedModels decide on: all but the built-in one, each once. */
export function limitedModels(models: readonly string[]): string[] {
  return [...new Set(models)].filter((model) => model !== BUILTIN_MODEL_ID);
}

/**
 * Active subscribers of each of the organization's plans, each count stopping at `cap` (then
 * `atLeast`), so a request reads at most `cap` + 1 subscriptions per plan, through the
 * subscriptions (tier_plan_id, end_user_id) index, however large the organization is.
 */
export async function countPlanSubscribers(db: Db, organizationId: string, cap: number) {
  const rows = await db.$queryRaw<{ tierPlanId: string; subscribers: number }[]>`
    select p.id as "tierPlanId", counted.subscribers
    from tier_plans p
    cross join lateral (
      select count(*)::int as subscribers
      from (
        select 1
        from subscriptions s
        join end_users e on e.id = s.end_user_id and e.deleted_at is null
        where s.tier_plan_id = p.id and s.status = 'active'
        limit ${cap + 1}
      ) capped
    ) counted
    where p.organization_id = ${organizationId}::uuid and counted.subscribers > 0
    order by p.created_at, p.id`;
  return rows.map((row) => ({
    tierPlanId: row.tierPlanId,
    subscribers: Math.min(row.subscribers, cap),
    atLeast: row.subscribers > cap,
  }));
}

/** How many active subscribers each of the organization's plans has, up to COUNT_CAP (src/lib/digits.ts). */
export const tierPlanSubscribers = guarded(
  { scope: "end_users:read" },
  async function tierPlanSubscribers(db: Db, actor: Actor) {
    return { counts: await countPlanSubscribers(db, actor.organizationId, COUNT_CAP) };
  },
);
