// What an end user reads in an answer: the member agent's knowledge answers a paraphrased
// question, in plain words, with numbered citations titled as a person sees them.
import { describe, expect, it } from "vitest";
import { create, publish } from "../builder-helpers";
import { newOrganization } from "../helpers";
import { drain, newKnowledgebase, upload } from "../knowledge-helpers";
import { converse } from "../runtime-helpers";

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
  const uploaded = await upload(key, kb, { name: options.fileName ?? "refund-policy.md", type: "text/markdown", bytes: POLICY });
  expect(uploaded.status).toBe(202);
  await drain();
  const billing = await create(key, "agents", {
    name: "Billing agent",
    description: "Invoices and payments",
    ...(options.attachKnowledge === false ? {} : { knowledge: [{ knowledgebaseId: kb }] }),
  });
  const support = await create(key, "agents", { name: "Support agent", description: "Technical problems, outages and errors" });
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
    for (const message of ["Can I Return a damaged Item?", "What are the refund policies for damages?", "how many days do returns take"]) {
      const response = await converse(app.key, app.appId, { message });
      expect(response.status).toBe(200);
      expect(response.body.reply).toContain("30 days");
      expect(response.body.reply).not.toMatch(/offline|Atrium|no knowledge|has none/i);
    }
  });

  it("says in plain words when it has no knowledge, or nothing matching", async () => {
    const app = await knowledgeApp({ attachKnowledge: false });
    const none = await converse(app.key, app.appId, { message: "Can I return a damaged item?" });
    expect(none.body.reply).toBe("I can only answer from this assistant's knowledge, and it doesn't have any yet.");
    const withKnowledge = await knowledgeApp();
    // Routed to the member with knowledge by its description; nothing there about the weather.
    const nothing = await converse(withKnowledge.key, withKnowledge.appId, { message: "Will the invoices weather tomorrow be sunny?" });
    expect(nothing.body.reply).toBe("I couldn't find anything about that in what I know. Try asking in other words.");
  });
});
