// Credits: one balance per organization, spent atomically (a single conditional UPDATE), so
// concurrent spenders in any number of processes can never take it below zero.
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { metrics } from "@/server/observability/metrics";

/** A Prisma client or an interactive transaction over it. */
type Executor = Pick<Db, "$executeRaw">;

/** Takes `amount` credits, or throws insufficient_credits and takes nothing. */
export async function chargeCredits(db: Executor, organizationId: string, amount: number): Promise<void> {
  if (amount <= 0) return;
  const updated = await db.$executeRaw`update organizations set credits = credits - ${amount} where id = ${organizationId}::uuid and credits >= ${amount}`;
  if (updated !== 1) {
    throw new AppError("insufficient_credits", `This needs ${amount} credit${amount === 1 ? "" : "s"} and the organization's balance cannot cover it; nothing was charged.`);
  }
  metrics().creditsSpent.inc(amount);
}

/** Gives back credits taken for a run that did not happen (an upstream failure, a cancel before anything ran). */
export async function refundCredits(db: Executor, organizationId: string, amount: number): Promise<void> {
  if (amount <= 0) return;
  await db.$executeRaw`update organizations set credits = credits + ${amount} where id = ${organizationId}::uuid`;
  metrics().creditsRefunded.inc(amount);
}
