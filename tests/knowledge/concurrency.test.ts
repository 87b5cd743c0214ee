// Guards that must hold under concurrent requests through separate handler instances ("servers"):
// Idempotency-Key, plan caps.
import { describe, expect, it } from "vitest";
import { createRestHandler } from "@/server/adapters/rest";
import { createDb, getDb } from "@/server/db";
import { api, newOrganization } from "../helpers";
import { tenantWithKnowledgebase } from "../knowledge-helpers";

function secondServer() {
  const db = createDb(process.env.DATABASE_URL!, 4);
  return { handler: createRestHandler({ db: () => db }), db };
}

describe("under concurrency", () => {
  it("one Idempotency-Key creates one source across servers; the others replay it or get conflict", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const other = secondServer();
    try {
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          api("POST", `/knowledgebases/${kbId}/sources`, {
            key: tenant.orgKey.secret,
            body: { contentText: "same body" },
            headers: { "idempotency-key": "concurrent-1" },
            handler: i % 2 ? other.handler : undefined,
          }),
        ),
      );
      const created = responses.filter((r) => r.status === 202);
      expect(created.length).toBeGreaterThanOrEqual(1);
      for (const r of created) expect(r.body).toEqual(created[0]!.body);
      for (const r of responses.filter((r) => r.status !== 202))
        expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status: 409, code: "conflict" });
      expect(await getDb().source.count({ where: { knowledgebaseId: kbId } })).toBe(1);
    } finally {
      await other.db.$disconnect();
      await other.db.pool.end();
    }
  });

  it("plan caps hold when requests race", async () => {
    const tenant = await newOrganization({ settings: { maxKnowledgebases: 2 } });
    const other = secondServer();
    try {
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          api("POST", "/knowledgebases", {
            key: tenant.orgKey.secret,
            body: { name: `kb ${i}` },
            handler: i % 2 ? other.handler : undefined,
          }),
        ),
      );
      // Every loser is refused with plan_limit: a 500 or a retryable conflict would fail here.
      const outcomes = responses.map((r) => (r.status === 201 ? "201" : `${r.status} ${r.body?.error?.code}`)).sort();
      expect(outcomes).toEqual(["201", "201", "403 plan_limit", "403 plan_limit", "403 plan_limit", "403 plan_limit"]);
      expect(await getDb().knowledgebase.count({ where: { organizationId: tenant.organization.id } })).toBe(2);
    } finally {
      await other.db.$disconnect();
      await other.db.pool.end();
    }
  });
});
