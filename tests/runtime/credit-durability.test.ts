// A run's credit charge commits without waiting for a WAL flush of its own: the run's record,
// flushed after it, makes both durable (NO_FLUSH in src/server/db.ts). Every run of an
// organization queues on its row, so a flush there would be paid once per run in a line.
import { describe, expect, it } from "vitest";
import { createRestHandler } from "@/server/adapters/rest";
import { closeDb, createDb, getDb } from "@/server/db";
import { api, walFlushCounter } from "../helpers";
import { portalScenario } from "../portal/helpers";

describe("a conversation turn's commits", () => {
  it("wait for one WAL flush per turn (its record's), for the organization's own turns and an end user's; the credits are taken all the same", async (context) => {
    // One connection, so its own I/O statistics (PostgreSQL 18) show what its commits waited for.
    const db = createDb(process.env.DATABASE_URL!, 1);
    try {
      const walFlushes = await walFlushCounter(db);
      // Reported as skipped, not passed, where the statistics are missing (before PostgreSQL 18).
      if (!walFlushes) return context.skip();
      const scenario = await portalScenario({ credits: 10 });
      const organizationId = scenario.tenant.organization.id;
      const handler = createRestHandler({ db: () => db });
      const turn = (body: Record<string, unknown>) =>
        api("POST", `/apps/${scenario.appId}/conversation`, { key: scenario.key, body, handler });
      const creditsBefore = (await getDb().organization.findUniqueOrThrow({ where: { id: organizationId } })).credits;
      const before = await walFlushes();

      for (let i = 0; i < 3; i++) expect((await turn({ message: "How long do refunds take?" })).status).toBe(200);
      for (let i = 0; i < 3; i++)
        expect(
          (
            await turn({
              message: "How long do refunds take?",
              endUserId: scenario.endUser.id,
              portalId: scenario.portal.id,
            })
          ).status,
        ).toBe(200);

      // Waiting for the charge's flush too, six turns waited for twelve.
      expect(await walFlushes()).toBeLessThanOrEqual(before + 6);
      expect((await getDb().organization.findUniqueOrThrow({ where: { id: organizationId } })).credits).toBe(
        creditsBefore - 6,
      );
      expect(
        (await getDb().subscription.findFirstOrThrow({ where: { endUserId: scenario.endUser.id } })).creditsUsed,
      ).toBe(3);
      expect(
        await getDb().execution.count({
          where: { organizationId, kind: "conversation", status: "succeeded", credits: 1 },
        }),
      ).toBe(6);
      expect(
        (await db.pool.query<{ synchronous_commit: string }>("show synchronous_commit")).rows[0]!.synchronous_commit,
      ).toBe("on");
    } finally {
      await closeDb(db);
    }
  });
});
