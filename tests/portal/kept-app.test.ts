// What a portal turn sends to PostgreSQL (issue 53): the portal in one statement, and the
// organization's lookup epoch read with the end user's session, so that the process keeps the app
// as published between turns (src/server/runtime/load.ts), as it does for API keys; a publish or a
// deletion moves the epoch on and the next turn reads the app again.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api } from "../helpers";
import { patchDraft, publish } from "../builder-helpers";
import { readEvents, statementsOf } from "../runtime-helpers";
import { portalChat, portalScenario, signIn } from "./helpers";

describe("a portal turn keeps the app as published", () => {
  it("ten statements, the app read on the first turn only, again after a publish, and refused once deleted", async () => {
    const scenario = await portalScenario();
    const cookie = await signIn(scenario, scenario.endUser.email);
    const turn = async () => {
      const response = await portalChat(
        scenario.portal.slug,
        scenario.appId,
        { message: "How long do refunds take?" },
        {
          cookie,
        },
      );
      expect(response.status).toBe(200);
      expect((await readEvents(response)).map((event) => event.event)).toContain("done");
    };
    expect(await statementsOf(turn)).toContain("atrium_live_app");
    // Ten, none through Prisma (thirteen before: the app read each turn, the portal in three).
    expect((await statementsOf(turn)).sort()).toEqual([
      "atrium_charge_end_user",
      "atrium_end_conversation_run",
      "atrium_end_user_session",
      "atrium_may_use_app",
      "atrium_record_run_usage",
      "atrium_resolve_portal",
      "atrium_retrieve_small",
      "atrium_save_turn",
      "atrium_start_conversation_run",
      "atrium_store_run_events",
    ]);

    expect((await patchDraft(scenario.key, "apps", scenario.appId, { name: "Helpdesk 2" })).status).toBe(200);
    const republished = (await publish(scenario.key, "apps", scenario.appId)).version.id as string;
    expect(await statementsOf(turn)).toContain("atrium_live_app");
    const latest = await getDb().execution.findFirst({
      where: { organizationId: scenario.tenant.organization.id },
      orderBy: { createdAt: "desc" },
    });
    expect(latest?.versionId).toBe(republished);

    expect((await api("DELETE", `/apps/${scenario.appId}`, { key: scenario.key })).status).toBe(204);
    const refused = await portalChat(
      scenario.portal.slug,
      scenario.appId,
      { message: "How long do refunds take?" },
      { cookie },
    );
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });
});
