// Prices per model, per organization: what a run on a model costs in credits (the contract's
// "Pricing"). A model without a price is unpriced and keeps the flat price per run; the run's
// charge itself is computed in src/server/runtime/pricing.ts from the prices read here.
import type { ModelPrice } from "@/schemas/org/model-prices";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { isAvailableModel } from "@/server/runtime/models";
import type { ModelPrice as ModelPriceOfRun, PriceList } from "@/server/runtime/pricing";
import { changesBetween, recordEvent } from "./events";
import { pick } from "@/lib/pick";

type PriceRow = {
  modelId: string;
  inputCreditsPerMillion: number;
  outputCreditsPerMillion: number;
  minimumCredits: number;
  updatedAt: Date;
};

const PRICE_FIELDS = ["inputCreditsPerMillion", "outputCreditsPerMillion", "minimumCredits"] as const;

function toModelPrice(row: PriceRow): ModelPrice {
  return {
    ...pick(row, ["modelId", ...PRICE_FIELDS]),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function priceTarget(modelId: string) {
  return { type: "model_price", id: modelId, label: modelId };
}

/**
 * The organization's prices (`organization`: its id's placeholder) as one JSON object by model id,
 * for a statement that reads them beside something else: a run reads them with its app (runtime/load.ts).
 */
export function priceListJson(organization: string): string {
  return `(select coalesce(json_object_agg(model_id, json_build_object('inputCreditsPerMillion', input_credits_per_million,
    'outputCreditsPerMillion', output_credits_per_million, 'minimumCredits', minimum_credits)), '{}'::json)
    from model_prices where organization_id = ${organization})`;
}

/** The price list of priceListJson's object. */
export function priceListOf(json: Record<string, ModelPriceOfRun>): PriceList {
  return new Map(Object.entries(json));
}

/** The organization's prices by model, for a run's charge: one prepared statement per run, on the pool. */
export async function organizationPrices(db: Db, organizationId: string): Promise<PriceList> {
  const { rows } = await db.pool.query<{ prices: Record<string, ModelPriceOfRun> }>({
    name: "atrium_model_prices",
    text: `select ${priceListJson("$1::uuid")} as prices`,
    values: [organizationId],
  });
  return priceListOf(rows[0]!.prices);
}

export const listModelPrices = guarded(
  { scope: "end_users:read", may: "grant" },
  async function listModelPrices(db: Db, actor: Actor): Promise<{ modelPrices: ModelPrice[] }> {
    const rows = await db.modelPrice.findMany({
      where: { organizationId: actor.organizationId },
      orderBy: { modelId: "asc" },
    });
    return { modelPrices: rows.map(toModelPrice) };
  },
);

/** Sets a model's price (creating it, or replacing the one it had); a model not in GET /models is invalid_model. */
export const setModelPrice = guarded(
  { scope: "end_users:write", may: "grant" },
  async function setModelPrice(
    db: Db,
    actor: Actor,
    input: {
      modelId: string;
      inputCreditsPerMillion: number;
      outputCreditsPerMillion: number;
      minimumCredits?: number;
    },
  ): Promise<ModelPrice> {
    if (!(await isAvailableModel(db, actor.organizationId, input.modelId)))
      throw new AppError("invalid_model", `No model "${input.modelId}" in GET /models for this organization.`);
    const price = {
      inputCreditsPerMillion: input.inputCreditsPerMillion,
      outputCreditsPerMillion: input.outputCreditsPerMillion,
      minimumCredits: input.minimumCredits ?? 1,
    };
    const key = { organizationId_modelId: { organizationId: actor.organizationId, modelId: input.modelId } };
    return db.$transaction(async (tx) => {
      const before = await tx.modelPrice.findUnique({ where: key });
      const row = await tx.modelPrice.upsert({
        where: key,
        create: { organizationId: actor.organizationId, modelId: input.modelId, ...price },
        update: price,
      });
      const empty = { inputCreditsPerMillion: null, outputCreditsPerMillion: null, minimumCredits: null };
      await recordEvent(tx, actor, {
        action: before ? "model_price.update" : "model_price.create",
        target: priceTarget(row.modelId),
        changes: changesBetween<Record<string, unknown>>(before ?? empty, price, PRICE_FIELDS),
      });
      return toModelPrice(row);
    });
  },
);

/** Removes a model's price: its runs cost the flat price again. Removing a price the model does not have is not_found. */
export const deleteModelPrice = guarded(
  { scope: "end_users:write", may: "grant" },
  async function deleteModelPrice(db: Db, actor: Actor, input: { modelId: string }): Promise<void> {
    await db.$transaction(async (tx) => {
      const removed = await tx.modelPrice.deleteMany({
        where: { organizationId: actor.organizationId, modelId: input.modelId },
      });
      if (removed.count === 0) throw new AppError("not_found", `No price set for model "${input.modelId}".`);
      await recordEvent(tx, actor, { action: "model_price.delete", target: priceTarget(input.modelId) });
    });
  },
);
