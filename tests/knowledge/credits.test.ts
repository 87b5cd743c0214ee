// chargeCredits: atomic, never below zero, nothing taken on refusal, also under concurrency.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { chargeCredits } from "@/server/services/provisioning/credits";
import { newOrganization } from "../helpers";

const balance = async (id: string) => (await getDb().organization.findUniqueOrThrow({ where: { id } })).credits;

describe("chargeCredits", () => {
  it("takes credits, and refuses with insufficient_credits taking nothing", async () => {
    const { organization } = await newOrganization({ credits: 3 });
    await chargeCredits(getDb(), organization.id, 2);
    expect(await balance(organization.id)).toBe(1);
    await expect(chargeCredits(getDb(), organization.id, 2)).rejects.toMatchObject({ code: "insufficient_credits" });
    expect(await balance(organization.id)).toBe(1);
  });

  it("never goes below zero when charges race", async () => {
    const { organization } = await newOrganization({ credits: 5 });
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => chargeCredits(getDb(), organization.id, 1)),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    expect(await balance(organization.id)).toBe(0);
  });

  it("works inside a transaction and rolls back with it", async () => {
    const { organization } = await newOrganization({ credits: 2 });
    await getDb()
      .$transaction(async (tx) => {
        await chargeCredits(tx, organization.id, 1);
        throw new Error("later step failed");
      })
      .catch(() => undefined);
    expect(await balance(organization.id)).toBe(2);
  });
});
