// The built-in offline model at a flow's LLM step answers from what the earlier steps found
// (a knowledge search's passages, other outputs the prompt names), and never echoes the question.
import { describe, expect, it } from "vitest";
import { offlineAnswer } from "@/server/runtime/offline-model";
import { offlineStepInput } from "@/server/runtime/offline-step";
import { api, newOrganization } from "../helpers";
import { create, publish } from "../builder-helpers";
import { newKnowledgebase, newPage } from "../knowledge-helpers";

async function transactionApp(key: string, flow: Record<string, unknown>) {
  const created = await create(key, "flows", flow);
  await publish(key, "flows", created.id);
  const app = await create(key, "apps", {
    name: "Desk",
    members: [{ id: created.id, kind: "flow" }],
    orchestrationMode: "sequential",
    api: { transactionEnabled: true },
  });
  await publish(key, "apps", app.id);
  return app.id as string;
}

describe("the built-in model in a flow", () => {
  it("a knowledge search then an LLM step answers with the passages' content, not 'no knowledge'", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const knowledgebaseId = await newKnowledgebase(tenant);
    await newPage(key, knowledgebaseId, {
      title: "Refund policy",
      markdown: "Refunds are paid within 14 days of the request. Shipping costs are not refunded.",
    });
    const appId = await transactionApp(key, {
      name: "Support answer",
      inputs: [{ key: "q", label: "Question", type: "text", required: true }],
      nodes: [
        { id: "start", type: "trigger_start", data: {} },
        { id: "search", type: "knowledge_search", data: { knowledgebaseId, query: "{{inputs.q}}" } },
        {
          id: "answer",
          type: "llm",
          data: { prompt: "Answer the question {{inputs.q}} using only these passages:\n{{nodes.search.output}}" },
        },
        { id: "out", type: "output", data: { value: "{{nodes.answer.output}}" } },
      ],
    });
    const response = await api("POST", `/apps/${appId}/transaction`, {
      key,
      body: { input: { q: "How long until refunds are paid?" } },
    });
    expect(response.status, response.text).toBe(200);
    const reply = JSON.stringify(response.body);
    expect(reply).toContain("Refunds are paid within 14 days of the request.");
    expect(reply).not.toContain("doesn't have any yet");
    expect(reply).not.toContain("How long until refunds are paid?");
  });

  it("an LLM step whose prompt names only the question answers from the passages an earlier search found", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const knowledgebaseId = await newKnowledgebase(tenant);
    await newPage(key, knowledgebaseId, {
      title: "Refund policy",
      markdown:
        "## Refunds\nRefunds are paid within 14 days of the request.\n\n## Shipping\nParcels leave within two days.",
    });
    const appId = await transactionApp(key, {
      name: "Support answer",
      inputs: [{ key: "q", label: "Question", type: "text", required: true }],
      nodes: [
        { id: "start", type: "trigger_start", data: {} },
        { id: "search", type: "knowledge_search", data: { knowledgebaseId, query: "{{inputs.q}}" } },
        { id: "answer", type: "llm", data: { prompt: "You are a helpful support assistant. Answer: {{inputs.q}}" } },
        { id: "out", type: "output", data: { value: "{{nodes.answer.output}}" } },
      ],
    });
    const response = await api("POST", `/apps/${appId}/transaction`, {
      key,
      body: { input: { q: "When are refunds paid?" } },
    });
    expect(response.status, response.text).toBe(200);
    const reply = JSON.stringify(response.body);
    expect(reply).toContain("Refunds are paid within 14 days of the request.");
    expect(reply).not.toMatch(/doesn't have any yet|couldn't find|Parcels|When are refunds paid/);
  });

  it("answers from a template step's output and a summariser's input text; a bare question is not echoed", () => {
    const text = "The meeting moved to Thursday. Lunch is provided. Bring the quarterly report.";
    expect(
      offlineAnswer({
        message: "Summarise in two sentences: ",
        knowledge: [{ title: "text", text }],
        leadWhenUnmatched: true,
      }),
    ).toBe("The meeting moved to Thursday. Lunch is provided. Bring the quarterly report.");
    // The question sits in the knowledge too (an earlier step repeated it): it is not the answer.
    const knowledge = [{ title: "notes", text: "When is the meeting? The meeting moved to Thursday." }];
    expect(offlineAnswer({ message: "When is the meeting?", knowledge })).toBe("The meeting moved to Thursday.");
    expect(
      offlineAnswer({
        message: "Answer ",
        knowledge: [{ title: "q", text: "What is the capital?" }],
        leadWhenUnmatched: true,
      }),
    ).not.toContain("capital");
  });

  it("hands the model the question apart from the earlier steps the prompt names, each once", () => {
    const scope = {
      inputs: { q: "When is the meeting?" },
      nodes: { notes: { output: "The meeting moved to Thursday." }, search: { output: "Refunds: paid in 14 days." } },
      passages: { search: [{ title: "Refunds", text: "Refunds are paid in 14 days." }] },
      vars: {},
    };
    expect(
      offlineStepInput(
        "Q: {{inputs.q}} Notes: {{nodes.notes.output}} {{nodes.notes.output}} {{nodes.search.output}}",
        scope,
      ),
    ).toEqual({
      message: "Q: When is the meeting? Notes:      ",
      knowledge: [
        { title: "notes", text: "The meeting moved to Thursday." },
        { title: "Refunds", text: "Refunds are paid in 14 days." },
      ],
      leadWhenUnmatched: true,
    });
    // Named by no step, a search's passages are still what the step answers from…
    expect(offlineStepInput("Answer: {{inputs.q}}", scope)).toMatchObject({
      message: "Answer: When is the meeting?",
      knowledge: [{ title: "Refunds", text: "Refunds are paid in 14 days." }],
    });
    // …and with no search before it, the inputs are the text to work on.
    expect(offlineStepInput("Summarise: {{inputs.q}}", { ...scope, passages: {} })).toMatchObject({
      message: "Summarise:  ",
      knowledge: [{ title: "q", text: "When is the meeting?" }],
    });
  });
});
