// The portal and console chats pick a dropped run up again (GET …/conversation/runs/{id}/events
// after Last-Event-ID) and stop it with the run's cancel: one run, one charge, nothing repeated;
// another end user, another organization's member or a signed-out caller sees nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConsoleConversationHandler, createConsoleRunEventsHandler } from "@/server/adapters/console";
import { createPortalRunEventsHandler } from "@/server/adapters/portal";
import { getDb } from "@/server/db";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { newOrganization, signInCookie, uniqueSuffix } from "../helpers";
import { deltaText, readEvents } from "../runtime-helpers";
import { clientAddress, errorCode, ORIGIN, portalCall, portalChat, portalScenario, signIn } from "./helpers";

const REPLY = "Refunds are paid within fourteen days of the request and shipping costs are not refunded at all";
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => REPLY, { tokenDelayMs: 40 });
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "slow-model";
});

afterAll(async () => {
  await fake.close();
});

function portalEvents(
  portal: string,
  appId: string,
  executionId: string,
  lastEventId: number,
  cookie?: string,
): Promise<Response> {
  const headers = new Headers({ "last-event-id": String(lastEventId) });
  if (cookie) headers.set("cookie", cookie);
  const url = `${ORIGIN}/api/portal/${portal}/apps/${appId}/conversation/runs/${executionId}/events`;
  return createPortalRunEventsHandler({ db: getDb })(new Request(url, { headers }), portal, appId, executionId);
}

describe("the portal chat resumes and stops a run", () => {
  it("drops after three events, resumes after the last one seen: the whole reply once, one execution, one credit", async () => {
    const scenario = await portalScenario({ billingModel: "slow-model" });
    const cookie = await signIn(scenario, scenario.endUser.email, clientAddress());
    const first = await readEvents(
      await portalChat(scenario.portal.slug, scenario.appId, { message: "How long do refunds take?" }, { cookie }),
      3,
    );
    expect(first[0]!.event).toBe("run");
    const executionId = JSON.parse(first[0]!.data).execution_id as string;

    const rest = await readEvents(
      await portalEvents(scenario.portal.slug, scenario.appId, executionId, Number(first.at(-1)!.id), cookie),
    );
    const all = [...first, ...rest];
    expect(all.map((e) => Number(e.id))).toEqual(all.map((_, i) => i + 1));
    expect(all.at(-1)!.event).toBe("done");
    expect(deltaText(all)).toBe(JSON.parse(all.at(-1)!.data).reply);
    expect(await getDb().execution.count({ where: { endUserId: scenario.endUser.id } })).toBe(1);
    expect(
      (await getDb().subscription.findFirstOrThrow({ where: { endUserId: scenario.endUser.id } })).creditsUsed,
    ).toBe(1);
  });

  it("Stop cancels the run: the stream ends `canceled`, the execution is canceled and billed", async () => {
    const scenario = await portalScenario({ billingModel: "slow-model" });
    const cookie = await signIn(scenario, scenario.endUser.email, clientAddress());
    const stream = await portalChat(
      scenario.portal.slug,
      scenario.appId,
      { message: "How long do refunds take?" },
      { cookie },
    );
    const [run] = await readEvents(stream, 1);
    const executionId = JSON.parse(run!.data).execution_id as string;

    const stopped = await portalCall(
      "mutation",
      "runs.cancel",
      { portal: scenario.portal.slug, appId: scenario.appId, executionId },
      { cookie },
    );
    expect(stopped.status).toBe(200);
    expect(stopped.body.result.data.status).toBe("canceled");
    const replay = await readEvents(await portalEvents(scenario.portal.slug, scenario.appId, executionId, 0, cookie));
    expect(replay.at(-1)!.event).toBe("error");
    expect(JSON.parse(replay.at(-1)!.data).error.code).toBe("canceled");
    expect(await getDb().execution.findUniqueOrThrow({ where: { id: executionId } })).toMatchObject({
      status: "canceled",
      credits: 1,
    });
  });

  it("a stopped answer stays in the conversation as far as it got, so history shows it and Regenerate can redo it", async () => {
    const scenario = await portalScenario({ billingModel: "slow-model" });
    const cookie = await signIn(scenario, scenario.endUser.email, clientAddress());
    const stream = await portalChat(
      scenario.portal.slug,
      scenario.appId,
      { message: "How long do refunds take?" },
      { cookie },
    );
    const seen = await readEvents(stream, 5);
    const { execution_id: executionId, conversation_id: conversationId } = JSON.parse(seen[0]!.data) as {
      execution_id: string;
      conversation_id: string;
    };
    await portalCall(
      "mutation",
      "runs.cancel",
      { portal: scenario.portal.slug, appId: scenario.appId, executionId },
      { cookie },
    );
    const partial = deltaText(
      await readEvents(await portalEvents(scenario.portal.slug, scenario.appId, executionId, 0, cookie)),
    );
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(REPLY.length);

    const messages = await getDb().conversationMessage.findMany({
      where: { conversationId },
      orderBy: { createdAt: "asc" },
    });
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "How long do refunds take?"],
      ["assistant", partial],
    ]);
    expect(await getDb().execution.findUniqueOrThrow({ where: { id: executionId } })).toMatchObject({
      status: "canceled",
      credits: 1,
      conversationId,
      output: partial,
    });
    expect(
      (await getDb().subscription.findFirstOrThrow({ where: { endUserId: scenario.endUser.id } })).creditsUsed,
    ).toBe(1);
  });

  it("another end user, a signed-out caller and a made-up run see nothing; nothing is canceled", async () => {
    const scenario = await portalScenario({ billingModel: "slow-model" });
    const cookie = await signIn(scenario, scenario.endUser.email, clientAddress());
    const [run] = await readEvents(
      await portalChat(scenario.portal.slug, scenario.appId, { message: "How long do refunds take?" }, { cookie }),
      1,
    );
    const executionId = JSON.parse(run!.data).execution_id as string;

    const bob = `bob-${uniqueSuffix()}@customer.example`;
    await getDb().endUser.create({ data: { organizationId: scenario.tenant.organization.id, email: bob } });
    const bobCookie = await signIn(scenario, bob, clientAddress());
    const asBob = await portalEvents(scenario.portal.slug, scenario.appId, executionId, 0, bobCookie);
    expect(asBob.status).toBe(404);
    expect((await asBob.json()).error.code).toBe("not_found");
    const bobStops = await portalCall(
      "mutation",
      "runs.cancel",
      { portal: scenario.portal.slug, appId: scenario.appId, executionId },
      { cookie: bobCookie },
    );
    expect(errorCode(bobStops)).toBe("not_found");
    expect((await portalEvents(scenario.portal.slug, scenario.appId, executionId, 0)).status).toBe(401);
    const madeUp = await portalEvents(
      scenario.portal.slug,
      scenario.appId,
      "00000000-0000-4000-8000-000000000000",
      0,
      cookie,
    );
    expect(madeUp.status).toBe(404);

    const events = await readEvents(await portalEvents(scenario.portal.slug, scenario.appId, executionId, 0, cookie));
    expect(events.at(-1)!.event).toBe("done");
  });
});

describe("the console chat resumes a run", () => {
  it("a member picks their run up after a drop; another organization's member gets not_found", async () => {
    const scenario = await portalScenario({ billingModel: "slow-model" });
    const cookie = await signInCookie(scenario.tenant.owner.email, scenario.tenant.owner.password);
    const post = new Request(`${ORIGIN}/api/console/apps/${scenario.appId}/conversation`, {
      method: "POST",
      headers: { cookie, origin: ORIGIN, "content-type": "application/json" },
      body: JSON.stringify({ message: "How long do refunds take?" }),
    });
    const first = await readEvents(await createConsoleConversationHandler({ db: getDb })(post, scenario.appId), 2);
    const executionId = JSON.parse(first[0]!.data).execution_id as string;
    const resume = (withCookie: string) =>
      createConsoleRunEventsHandler({ db: getDb })(
        new Request(
          `${ORIGIN}/api/console/apps/${scenario.appId}/conversation/runs/${executionId}/events?lastEventId=${first.at(-1)!.id}`,
          { headers: { cookie: withCookie } },
        ),
        scenario.appId,
        executionId,
      );
    const rest = await readEvents(await resume(cookie));
    expect(deltaText([...first, ...rest])).toBe(REPLY);

    const other = await newOrganization();
    const otherCookie = await signInCookie(other.owner.email, other.owner.password);
    const foreign = await resume(otherCookie);
    expect(foreign.status).toBe(404);
  });
});
