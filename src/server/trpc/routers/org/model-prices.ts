import {
  ListModelPricesOutput,
  ModelPriceIdInput,
  SetModelPriceInput,
  ModelPriceOutput,
} from "@/schemas/org/model-prices";
import { deleteModelPrice, listModelPrices, setModelPrice } from "@/server/services/org/model-prices";
import { scopedProcedure } from "../../init";
import { answeringAs, restRouter } from "../../service-procedures";

export const modelPricesRouter = restRouter("Model prices", (rest) => ({
  list: scopedProcedure(listModelPrices.requirement)
    .meta({
      openapi: {
        method: "GET",
        path: "/model-prices",
        tags: ["Model prices"],
        summary: "List the organization's model prices",
        description:
          "A run calling only unpriced models costs 1 credit; else the larger of its priced models' `minimumCredits` and its tokens' cost, rounded up.",
      },
    })
    .output(ListModelPricesOutput)
    .query(({ ctx }) => listModelPrices(ctx.db, ctx.actor)),

  set: rest.mutation("PUT", answeringAs("modelPrice", setModelPrice), {
    path: "/model-prices/{modelId}",
    summary: "Price a model",
    description: "Creates or replaces it. URL-encode the `/` of a model id (`acme%2Fgpt-4o`).",
    errors: ["invalid_model"],
    input: SetModelPriceInput,
    output: ModelPriceOutput,
  }),

  delete: rest.remove(deleteModelPrice, {
    path: "/model-prices/{modelId}",
    summary: "Remove a model's price",
    description: "Its runs cost the flat price again.",
    errors: ["not_found"],
    input: ModelPriceIdInput,
  }),
}));
