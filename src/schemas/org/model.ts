import { z } from "zod";
import { BUILT_INS } from "../builder/builder";

export const Model = z
  .object({
    id: z.string(),
    name: z.string(),
    provider: z.string(),
    acceptsImages: z.boolean().meta({ description: "Reads images attached to a turn" }),
  })
  .meta({ id: "Model" });
export const BuiltInAvailability = z
  .object({
    name: z.enum(BUILT_INS),
    available: z.boolean(),
    reason: z.string().nullable().meta({ description: "Why this deployment cannot provide it; null when available" }),
  })
  .meta({ id: "BuiltInAvailability" });
export const ListModelsOutput = z.object({
  models: z.array(Model),
  builtIns: z.array(BuiltInAvailability).meta({
    description:
      "Every agent built-in, and whether this deployment provides it (an unavailable one is refused in a draft)",
  }),
});
