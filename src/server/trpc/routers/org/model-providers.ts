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
import { router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const modelProvidersRouter = router({
  list: memberCalls.query(listModelProviders, z.array(ModelProvider)),
  create: memberCalls.mutationWith(createModelProvider, CreateModelProviderInput, ModelProvider),
  update: memberCalls.mutationWith(updateModelProvider, UpdateModelProviderInput, ModelProvider),
  remove: memberCalls.mutationWith(deleteModelProvider, ModelProviderIdInput, ModelProvider),
});
