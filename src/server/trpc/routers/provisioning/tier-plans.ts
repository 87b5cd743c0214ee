import { ListQuery } from "@/schemas/common";
import {
  CreateTierPlanInput,
  ListTierPlansOutput,
  TierPlanIdInput,
  TierPlanSubscribersOutput,
  UpdateTierPlanInput,
  CreateTierPlanOutput,
  TierPlanOutput,
} from "@/schemas/provisioning/provisioning";
import {
  archiveTierPlan,
  createTierPlan,
  listTierPlans,
  tierPlanSubscribers,
  updateTierPlan,
} from "@/server/services/provisioning/tier-plans";
import { scopedProcedure } from "../../init";
import { answeringAs, restRouter } from "../../service-procedures";

export const tierPlansRouter = restRouter("Tier plans", (rest) => ({
  list: rest.query(listTierPlans, {
    path: "/tier-plans",
    summary: "List tier plans",
    description: "Archived plans are listed with `archived: true`; they can no longer be assigned.",
    input: ListQuery,
    output: ListTierPlansOutput,
  }),

  create: rest.mutation("POST", createTierPlan, {
    path: "/tier-plans",
    summary: "Create a tier plan",
    description:
      "`allowedModels` limits the models its end users' runs may call (null: every model); an id not in `GET /models` → 422 `invalid_model`. `withGroup` gives the plan its own user group. `description`, a price (`priceAmount` in cents with `priceCurrency` and `priceInterval`) and `features` (what it includes) are shown to owners and in portals; nothing is charged.",
    errors: ["invalid_model"],
    successStatus: 201,
    input: CreateTierPlanInput,
    output: CreateTierPlanOutput,
  }),

  update: rest.mutation("PATCH", answeringAs("tierPlan", updateTierPlan), {
    path: "/tier-plans/{tierPlanId}",
    summary: "Change a tier plan's name, monthly credits, allowed models, description, price or features",
    description:
      "Only the fields passed change. A new `creditAllowance` applies at once to every active pool of the plan. `allowedModels`: the models its end users' runs may call (null: every model); an end user's run on a model none of their plans allows → 403 `model_not_in_plan`. The price is shown, not charged; `priceAmount: null` removes it.",
    errors: ["not_found", "invalid_model"],
    input: UpdateTierPlanInput,
    output: TierPlanOutput,
  }),

  /** The console's plans page: active subscribers per plan. */
  subscribers: scopedProcedure(tierPlanSubscribers.requirement)
    .output(TierPlanSubscribersOutput)
    .query(({ ctx }) => tierPlanSubscribers(ctx.db, ctx.actor)),

  archive: scopedProcedure(archiveTierPlan.requirement)
    .input(TierPlanIdInput)
    .output(TierPlanOutput)
    .mutation(async ({ ctx, input }) => ({ tierPlan: await archiveTierPlan(ctx.db, ctx.actor, input) })),
}));
