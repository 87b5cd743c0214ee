// An end user downloads everything the organization holds about them from the portal (issue 48,
// the contract's "Data rights"): the same document as the admin's export, theirs only, and
// nothing without a portal session.
import { describe, expect, it } from "vitest";
import { createPortalExportHandler } from "@/server/adapters/portal";
import { getDb } from "@/server/db";
import { api, toApiResponse } from "../helpers";
import { readEvents } from "../runtime-helpers";
import { clientAddress, ORIGIN, portalChat, portalScenario, signIn } from "./helpers";

const exportHandler = createPortalExportHandler({ db: getDb });

/** The portal's "Download my data", as the page asks for it. */
async function download(portal: string, cookie?: string) {
  const headers = new Headers(cookie ? { cookie } : {});
  return toApiResponse(
    await exportHandler(new Request(`${ORIGIN}/api/portal/${portal}/account/export`, { headers }), portal),
  );
}

describe("an end user's own export from the portal", () => {
  it("holds their conversation and the admin's export's sections, nobody else's, and needs their session", async () => {
    const scenario = await portalScenario();
    const portal = scenario.portal.slug;
    const cookie = await signIn(scenario, scenario.endUser.email);
    const events = await readEvents(
      await portalChat(portal, scenario.appId, { message: "How long do refunds take?" }, { cookie }),
    );
    const conversationId = JSON.parse(events.find((e) => e.event === "done")!.data).conversation_id;

    const bob = `bob-${Date.now()}@customer.example`;
    await api("POST", "/end-users", { key: scenario.key, body: { email: bob, tierPlanIds: [scenario.plan.id] } });
    const bobCookie = await signIn(scenario, bob, clientAddress());
    await readEvents(
      await portalChat(portal, scenario.appId, { message: "Is there an outage?" }, { cookie: bobCookie }),
    );

    const own = await download(portal, cookie);
    expect(own.status).toBe(200);
    const exported = own.body;
    expect(exported.endUser).toMatchObject({ id: scenario.endUser.id, email: scenario.endUser.email });
    expect(exported.conversations.map((c: { id: string }) => c.id)).toEqual([conversationId]);
    expect(JSON.stringify(exported)).not.toContain(bob);
    expect(JSON.stringify(exported)).not.toContain("outage");

    const byAdmin = await api("GET", `/end-users/${scenario.endUser.id}/export`, { key: scenario.key });
    expect(Object.keys(exported).sort()).toEqual(Object.keys(byAdmin.body).sort());

    const anonymous = await download(portal);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe("unauthorized");
  });
});
