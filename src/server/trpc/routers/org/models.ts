import { z } from "zod";
import { ListModelsOutput } from "@/schemas/org/model";
import { listModels } from "@/server/services/org/models";
import { restRouter } from "../../service-procedures";

export const modelsRouter = restRouter("Models", (rest) => ({
  list: rest.query(listModels, {
    path: "/models",
    summary: "List the models agents can use",
    description:
      "Any valid key may call this. The built-in offline model is always listed, then the operator's default provider's models, then the organization's own providers' chat models as `<provider slug>/<model id>`. `builtIns` says which agent built-ins this deployment provides (`webSearch` needs the operator's search endpoint); enabling an unavailable one is `invalid_request`.",
    input: z.strictObject({}),
    output: ListModelsOutput,
  }),
}));
