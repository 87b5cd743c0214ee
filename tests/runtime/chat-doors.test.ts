// The console's and the portal's chat streams are one door (src/server/adapters/conversation-door.ts):
// what one of them did, the other does now. The portal refuses a message of only whitespace
// (it once took it and ran), and the console answers 499 to a client that hung up while its
// body was still arriving (it once answered an error as if the client could read it).
import { describe, expect, it } from "vitest";
import { createConsoleConversationHandler } from "@/server/adapters/console";
import { getDb } from "@/server/db";
import { signInCookie } from "../helpers";
import { clientAddress, ORIGIN, portalChat, portalScenario, signIn } from "../portal/helpers";
import { credits } from "../runtime-helpers";

describe("one chat door for the console and the portal", () => {
  it("the portal refuses a message of only whitespace with invalid_request naming it; nothing runs or is charged", async () => {
    const scenario = await portalScenario();
    const cookie = await signIn(scenario, scenario.endUser.email, clientAddress());
    const before = await credits(scenario.tenant);
    const response = await portalChat(scenario.portal.slug, scenario.appId, { message: " \n\t " }, { cookie });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.code).toBe("invalid_request");
    expect(JSON.stringify(body.error)).toContain("message");
    expect(await credits(scenario.tenant)).toBe(before);
    expect(
      (await getDb().subscription.findFirstOrThrow({ where: { endUserId: scenario.endUser.id } })).creditsUsed,
    ).toBe(0);
    expect(await getDb().execution.count({ where: { organizationId: scenario.tenant.organization.id } })).toBe(0);
  });

  it("the console answers 499 to a client that hangs up while sending its body; nothing runs or is charged", async () => {
    const scenario = await portalScenario();
    const cookie = await signInCookie(scenario.tenant.owner.email, scenario.tenant.owner.password);
    const before = await credits(scenario.tenant);
    const hangUp = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"message":"How long do ref'));
        hangUp.signal.addEventListener("abort", () => controller.error(new Error("the client closed the connection")));
      },
    });
    const request = new Request(`${ORIGIN}/api/console/apps/${scenario.appId}/conversation`, {
      method: "POST",
      headers: { cookie, origin: ORIGIN, "content-type": "application/json" },
      body,
      duplex: "half",
      signal: hangUp.signal,
    } as RequestInit);
    const answer = createConsoleConversationHandler({ db: getDb })(request, scenario.appId);
    setTimeout(() => hangUp.abort(), 50);
    expect((await answer).status).toBe(499);
    expect(await credits(scenario.tenant)).toBe(before);
    expect(await getDb().execution.count({ where: { organizationId: scenario.tenant.organization.id } })).toBe(0);
  });
});
