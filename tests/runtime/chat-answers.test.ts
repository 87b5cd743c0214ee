// What an end user reads in an answer: the member agent's knowledge answers a paraphrased
// question, in plain words, with numbered citations titled as a person sees them.
import { describe, expect, it } from "vitest";
import { create, publish } from "../builder-helpers";
import { newOrganization } from "../helpers";
import { drain, newKnowledgebase, upload } from "../knowledge-helpers";
import { getDb } from "@/server/db";
import { readableTitle } from "@/server/runtime/citations";
import { converse, readEvents } from "../runtime-helpers";

const POLICY = [
  "# Refund Policy",
  "",
  "Customers may return damaged items within 30 days of delivery for a full refund.",
  "",
  "## Shipping",
  "",
  "Shipping costs are not refunded once a parcel has left our warehouse.",
].join("\n");

async function knowledgeApp(options: { fileName?: string; attachKnowledge?: boolean } = {}) {
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  const kb = await newKnowledgebase(tenant);
  const uploaded = await upload(key, kb, {
    name: options.fileName ?? "refund-policy.md",
    type: "text/markdown",
    bytes: POLICY,
  });
  expect(uploaded.status).toBe(202);
  await drain();
  const billing = await create(key, "agents", {
    name: "Billing agent",
    description: "Invoices and payments",
    ...(options.attachKnowledge === false ? {} : { knowledge: [{ knowledgebaseId: kb }] }),
  });
  const support = await create(key, "agents", {
    name: "Support agent",
    description: "Technical problems, outages and errors",
  });
  await publish(key, "agents", billing.id);
  await publish(key, "agents", support.id);
  const app = await create(key, "apps", {
    name: "Helpdesk",
    // The member without knowledge first: routing must not settle on it for a question it cannot answer.
    members: [
      { id: support.id, kind: "agent" },
      { id: billing.id, kind: "agent" },
    ],
    orchestrationMode: "supervisor",
  });
  await publish(key, "apps", app.id);
  return { tenant, key, kb, appId: app.id as string, sourceId: uploaded.body.source.id as string };
}

describe("answers from an agent's knowledge", () => {
  it("a paraphrased question through the supervisor of a two-member app is answered from the member's knowledge", async () => {
    const app = await knowledgeApp();
    for (const message of [
      "Can I Return a damaged Item?",
      "What are the refund policies for damages?",
      "how many days do returns take",
    ]) {
      const response = await converse(app.key, app.appId, { message });
      expect(response.status).toBe(200);
      expect(response.body.reply).toContain("30 days");
      expect(response.body.reply).not.toMatch(/offline|Atrium|no knowledge|has none|refund-policy/i);
    }
  });

  it("says in plain words when it has no knowledge, or nothing matching", async () => {
    const app = await knowledgeApp({ attachKnowledge: false });
    const none = await converse(app.key, app.appId, { message: "Can I return a damaged item?" });
    expect(none.body.reply).toBe("I can only answer from this assistant's knowledge, and it doesn't have any yet.");
    const withKnowledge = await knowledgeApp();
    // Routed to the member with knowledge by its description; nothing there about the weather.
    const nothing = await converse(withKnowledge.key, withKnowledge.appId, {
      message: "Will the invoices weather tomorrow be sunny?",
    });
    expect(nothing.body.reply).toBe("I couldn't find anything about that in what I know. Try asking in other words.");
  });

  it("cites the passages it used, numbered from 1, titled as a person reads them, in done and in the stored message", async () => {
    const app = await knowledgeApp();
    const response = await fetchStream(app.key, app.appId, {
      message: "Are shipping costs refunded for damaged items?",
      stream: true,
    });
    const events = await readEvents(response);
    const done = JSON.parse(events.find((e) => e.event === "done")!.data);
    expect(done.reply).toMatch(/\[1\]/);
    expect(done.reply).not.toMatch(/Sources:|refund-policy|\.md/);
    expect(done.citations.length).toBeGreaterThan(0);
    expect(done.citations.map((c: { n: number }) => c.n)).toEqual(done.citations.map((_: unknown, i: number) => i + 1));
    for (const citation of done.citations) {
      expect(citation).toMatchObject({
        kind: "source",
        id: app.sourceId,
        knowledgebaseId: app.kb,
        title: "Refund policy",
      });
      expect(done.reply).toContain(`[${citation.n}]`);
      expect(citation.text.length).toBeLessThanOrEqual(2000);
    }
    expect(done.citations.map((c: { heading: string | null }) => c.heading)).toContain("Refund Policy > Shipping");
    const stored = await getDb().conversationMessage.findFirstOrThrow({
      where: { conversationId: done.conversation_id, role: "assistant" },
    });
    expect(stored.citations).toEqual(done.citations);
  });

  it("titles a source named by its file as words", () => {
    expect(readableTitle("refund-policy.md")).toBe("Refund policy");
    expect(readableTitle("docs/Refund_Policy.PDF")).toBe("Refund policy");
    expect(readableTitle("API_Guide.pdf")).toBe("API guide");
    expect(readableTitle("Employee Handbook")).toBe("Employee Handbook");
  });
});

async function fetchStream(key: string, appId: string, body: Record<string, unknown>): Promise<Response> {
  const { restHandler } = await import("../helpers");
  return restHandler()(
    new Request(`http://localhost/api/v1/apps/${appId}/conversation`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}
