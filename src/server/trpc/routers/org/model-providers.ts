// Console-only: an organization's model providers, for admins (API keys cannot manage them).
import { z } from "zod";
import {
  CreateModelProviderInput,
  ModelProvider,
  ModelProviderIdInput,
  UpdateModelProviderInput,
} from "@/schemas/org/integration";
import {
  createModelProvider,
  deleteModelProvider,
  listModelProviders,
  updateModelProvider,
} from "@/server/services/org/model-providers";
import { memberProcedure, router } from "../../init";

export const modelProvidersRouter = router({
  list: memberProcedure(listModelProviders.requirement)
    .output(z.array(ModelProvider))
    .query(({ ctx }) => listModelProviders(ctx.db, ctx.actor)),
  create: memberProcedure(createModelProvider.requirement)
    .input(CreateModelProviderInput)
    .output(ModelProvider)
    .mutation(({ ctx, input }) => createModelProvider(ctx.db, ctx.actor, input)),
  update: memberProcedure(updateModelProvider.requirement)
    .input(UpdateModelProviderInput)
    .output(ModelProvider)
    .mutation(({ ctx, input }) => updateModelProvider(ctx.db, ctx.actor, input)),
  remove: memberProcedure(deleteModelProvider.requirement)
    .input(ModelProviderIdInput)
    .output(ModelProvider)
    .mutation(({ ctx, input }) => deleteModelProvider(ctx.db, ctx.actor, input)),
});
