import { z } from "zod";
import { ListQuery } from "@/schemas/common";
import {
  CreateTierPlanInput,
  ListTierPlansOutput,
  TierPlan,
  TierPlanIdInput,
  TierPlanSubscribersOutput,
  UpdateTierPlanInput,
  UserGroup,
} from "@/schemas/provisioning";
import {
  archiveTierPlan,
  createTierPlan,
  listTierPlans,
  tierPlanSubscribers,
  updateTierPlan,
} from "@/server/services/tier-plans";
import { router, scopedProcedure } from "../init";

export const tierPlansRouter = router({
  list: scopedProcedure(listTierPlans.requirement)
    .meta({
      openapi: {
        method: "GET",
        path: "/tier-plans",
        tags: ["Tier plans"],
        summary: "List tier plans",
        description: "Archived plans are listed with `archived: true`; they can no longer be assigned.",
      },
    })
    .input(ListQuery)
    .output(ListTierPlansOutput)
    .query(({ ctx, input }) => listTierPlans(ctx.db, ctx.actor, input)),

  create: scopedProcedure(createTierPlan.requirement)
    .input(CreateTierPlanInput)
    .output(z.object({ tierPlan: TierPlan, group: UserGroup.optional() }))
    .mutation(({ ctx, input }) => createTierPlan(ctx.db, ctx.actor, input)),

  update: scopedProcedure(updateTierPlan.requirement)
    .input(UpdateTierPlanInput)
    .output(z.object({ tierPlan: TierPlan }))
    .mutation(async ({ ctx, input }) => ({ tierPlan: await updateTierPlan(ctx.db, ctx.actor, input) })),

  /** The console's plans page: active subscribers per plan. */
  subscribers: scopedProcedure(tierPlanSubscribers.requirement)
    .output(TierPlanSubscribersOutput)
    .query(({ ctx }) => tierPlanSubscribers(ctx.db, ctx.actor)),

  archive: scopedProcedure(archiveTierPlan.requirement)
    .input(TierPlanIdInput)
    .output(z.object({ tierPlan: TierPlan }))
    .mutation(async ({ ctx, input }) => ({ tierPlan: await archiveTierPlan(ctx.db, ctx.actor, input) })),
});
