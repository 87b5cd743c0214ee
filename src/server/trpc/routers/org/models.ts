import { z } from "zod";
import { ListModelsOutput } from "@/schemas/org/model";
import { listModels } from "@/server/services/org/models";
import { router, scopedProcedure } from "../../init";

export const modelsRouter = router({
  list: scopedProcedure(listModels.requirement)
    .meta({
      openapi: {
        method: "GET",
        path: "/models",
        tags: ["Models"],
        summary: "List the models agents can use",
        description:
          "Any valid key may call this. The built-in offline model is always listed, then the operator's default provider's models, then the organization's own providers' chat models as `<provider slug>/<model id>`. `builtIns` says which agent built-ins this deployment provides (`webSearch` needs the operator's search endpoint); enabling an unavailable one is `invalid_request`.",
      },
    })
    .input(z.strictObject({}))
    .output(ListModelsOutput)
    .query(({ ctx }) => listModels(ctx.db, ctx.actor)),
});
