import { z } from "zod";

export const Model = z.object({ id: z.string(), name: z.string(), provider: z.string() }).meta({ id: "Model" });
export const ListModelsOutput = z.object({ models: z.array(Model) });
