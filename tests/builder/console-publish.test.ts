// Publishing from the console: the console sends one Idempotency-Key per intent, so a
// double-click (or a retry after a lost answer) makes one version, while publishing again on
// purpose, with a new key, still makes another.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { newOrganization, signInCookie, trpc, trpcErrorCode } from "../helpers";
import { create } from "../builder-helpers";

async function versionCount(itemId: string): Promise<number> {
  return getDb().builderVersion.count({ where: { itemId } });
}

describe("console publish with Idempotency-Key", () => {
  it("makes one version for two publishes with the same key, and replays the first answer", async () => {
    const tenant = await newOrganization();
    const agent = await create(tenant.orgKey.secret, "agents");
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const headers = { "idempotency-key": "publish-intent-1" };

    const [first, second] = await Promise.all([
      trpc("mutation", "agents.publish", { agentId: agent.id, notes: "v1" }, { cookie, headers }),
      trpc("mutation", "agents.publish", { agentId: agent.id, notes: "v1" }, { cookie, headers }),
    ]);
    // The second either replays the first answer or, while the first still runs, is refused.
    const statuses = [first.status, second.status].sort();
    expect(statuses[0]).toBe(200);
    expect([200, 409]).toContain(statuses[1]);
    expect(await versionCount(agent.id)).toBe(1);

    const replay = await trpc("mutation", "agents.publish", { agentId: agent.id, notes: "v1" }, { cookie, headers });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.result.data.version.number).toBe(1);
    expect(await versionCount(agent.id)).toBe(1);
  });

  it("publishes twice on purpose with two keys, or with none", async () => {
    const tenant = await newOrganization();
    const flow = await create(tenant.orgKey.secret, "flows");
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    for (const headers of [{ "idempotency-key": "intent-a" }, { "idempotency-key": "intent-b" }, undefined]) {
      expect((await trpc("mutation", "flows.publish", { flowId: flow.id }, { cookie, headers })).status).toBe(200);
    }
    expect(await versionCount(flow.id)).toBe(3);
  });

  it("refuses the same key with another body as a conflict and forgets a key whose request was refused", async () => {
    const tenant = await newOrganization();
    const agent = await create(tenant.orgKey.secret, "agents");
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const headers = { "idempotency-key": "intent-c" };
    const missing = await trpc(
      "mutation",
      "agents.publish",
      { agentId: "11111111-1111-4111-8111-111111111111" },
      { cookie, headers },
    );
    expect(trpcErrorCode(missing)).toBe("not_found");
    expect((await trpc("mutation", "agents.publish", { agentId: agent.id }, { cookie, headers })).status).toBe(200);
    const other = await trpc("mutation", "agents.publish", { agentId: agent.id, notes: "other" }, { cookie, headers });
    expect({ status: other.status, code: trpcErrorCode(other) }).toEqual({ status: 409, code: "conflict" });
    const malformed = await trpc(
      "mutation",
      "agents.publish",
      { agentId: agent.id },
      { cookie, headers: { "idempotency-key": "x".repeat(256) } },
    );
    expect({ status: malformed.status, code: trpcErrorCode(malformed) }).toEqual({
      status: 400,
      code: "invalid_request",
    });
    expect(await versionCount(agent.id)).toBe(1);
  });
});
