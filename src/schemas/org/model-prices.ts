// Prices per model, per organization (GET/PUT/DELETE /model-prices): credits per million input
// and output tokens, and the least a run on the model costs. A model without a price is unpriced:
// runs that call only unpriced models cost their flat price (src/server/runtime/pricing.ts).
import { z } from "zod";
import { plainText, Timestamp } from "../common";

export const MAX_CREDITS_PER_MILLION = 1_000_000_000;
/** The console's typical turn: what its cost is shown for. */
export const TYPICAL_TURN = { inputTokens: 1000, outputTokens: 500 } as const;

const CreditsPerMillion = z.number().int().min(0).max(MAX_CREDITS_PER_MILLION);
/** A path parameter arrives as sent: `acme%2Fgpt-4o` is the model `acme/gpt-4o`. */
function decodedSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
const ModelId = plainText(200).min(1).transform(decodedSegment).meta({ description: "A model id from `GET /models`" });

export const ModelPrice = z
  .object({
    modelId: z.string(),
    inputCreditsPerMillion: z.number().int(),
    outputCreditsPerMillion: z.number().int(),
    minimumCredits: z.number().int(),
    updatedAt: Timestamp,
  })
  .meta({ id: "ModelPrice" });
export type ModelPrice = z.infer<typeof ModelPrice>;

export const ListModelPricesOutput = z.object({ modelPrices: z.array(ModelPrice) });
export const ModelPriceIdInput = z.strictObject({ modelId: ModelId });
export const SetModelPriceInput = z.strictObject({
  modelId: ModelId,
  inputCreditsPerMillion: CreditsPerMillion,
  outputCreditsPerMillion: CreditsPerMillion,
  minimumCredits: CreditsPerMillion.default(1).meta({
    description: "The least a run calling this model costs; default 1",
  }),
});
export type SetModelPriceInput = z.input<typeof SetModelPriceInput>;

/** What a turn of `inputTokens` and `outputTokens` costs at a price (the console shows a typical turn's). */
export function turnCredits(
  price: Pick<ModelPrice, "inputCreditsPerMillion" | "outputCreditsPerMillion" | "minimumCredits">,
  { inputTokens, outputTokens }: { inputTokens: number; outputTokens: number } = TYPICAL_TURN,
): number {
  const metered = Math.ceil(
    (inputTokens * price.inputCreditsPerMillion + outputTokens * price.outputCreditsPerMillion) / 1_000_000,
  );
  return Math.max(price.minimumCredits, metered);
}

export const ModelPriceOutput = z.object({ modelPrice: ModelPrice });
