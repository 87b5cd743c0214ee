// Organization › Models and prices through the console door (tRPC, session cookie): an admin
// lists the models with their prices, prices one (the typical turn the page shows follows the
// same rule as a run's charge) and removes the price; a member cannot read or change prices.
import { expect, it } from "vitest";
import { turnCredits } from "@/schemas/org/model-prices";
import { getDb } from "@/server/db";
import { addPerson, newOrganization, signInCookie, trpc, trpcErrorCode } from "../helpers";

it("lets an admin price a model, see it listed beside the models, and remove it", async () => {
  const tenant = await newOrganization();
  const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
  const models = await trpc("query", "models.list", {}, { cookie });
  expect(models.status, models.text).toBe(200);
  expect(models.body.result.data.models.map((model: { id: string }) => model.id)).toContain("atrium-offline");
  expect((await trpc("query", "modelPrices.list", undefined, { cookie })).body.result.data).toEqual({
    modelPrices: [],
  });

  const price = { inputCreditsPerMillion: 2500, outputCreditsPerMillion: 10_000, minimumCredits: 1 };
  const set = await trpc("mutation", "modelPrices.set", { modelId: "atrium-offline", ...price }, { cookie });
  expect(set.status).toBe(200);
  expect(set.body.result.data.modelPrice).toMatchObject({ modelId: "atrium-offline", ...price });
  // 1,000 × 0.0025 + 500 × 0.01 = 7.5 → 8 credits a typical turn.
  expect(turnCredits(set.body.result.data.modelPrice)).toBe(8);
  const listed = await trpc("query", "modelPrices.list", undefined, { cookie });
  expect(listed.body.result.data.modelPrices).toHaveLength(1);
  const [event] = await getDb().auditEvent.findMany({
    where: { organizationId: tenant.organization.id, action: "model_price.create" },
  });
  expect(event).toMatchObject({ door: "console", targetId: "atrium-offline" });

  const unknown = await trpc("mutation", "modelPrices.set", { modelId: "nope", ...price }, { cookie });
  expect(trpcErrorCode(unknown)).toBe("invalid_model");

  expect((await trpc("mutation", "modelPrices.delete", { modelId: "atrium-offline" }, { cookie })).status).toBe(200);
  expect((await trpc("query", "modelPrices.list", undefined, { cookie })).body.result.data.modelPrices).toEqual([]);
});

it("keeps prices to admins", async () => {
  const tenant = await newOrganization();
  const member = await addPerson(tenant.operator, "member");
  const cookie = await signInCookie(member.email, member.password);
  expect(trpcErrorCode(await trpc("query", "modelPrices.list", undefined, { cookie }))).toBe("forbidden_role");
  const set = await trpc(
    "mutation",
    "modelPrices.set",
    { modelId: "atrium-offline", inputCreditsPerMillion: 1, outputCreditsPerMillion: 1 },
    { cookie },
  );
  expect(trpcErrorCode(set)).toBe("forbidden_role");
  expect(await getDb().modelPrice.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
});
