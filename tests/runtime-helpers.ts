// A published two-member app over a knowledgebase, made through the REST API, an organization's
// Anthropic provider at the fake one, and a real SSE parser reading a streamed answer.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { vi } from "vitest";
import { getDb } from "@/server/db";
import { createModelProvider } from "@/server/services/org/model-providers";
import type { FakeAnthropic } from "./fake-anthropic";
import { api, newOrganization, type NewOrganizationOptions, type Tenant } from "./helpers";
import { create, publish } from "./builder-helpers";
import { newKnowledgebase, newPage } from "./knowledge-helpers";

export interface PublishedApp {
  tenant: Tenant;
  key: string;
  appId: string;
  billingAgentId: string;
  supportAgentId: string;
}

export async function publishedApp(
  options: {
    tenant?: NewOrganizationOptions;
    app?: Record<string, unknown>;
    billingModel?: string;
    supportModel?: string;
    /** The support agent reads the billing agent's knowledgebase too. */ sharedKnowledge?: boolean;
  } = {},
): Promise<PublishedApp> {
  const tenant = await newOrganization(options.tenant);
  const key = tenant.orgKey.secret;
  const kb = await newKnowledgebase(tenant);
  await newPage(key, kb, {
    title: "Refund policy",
    markdown: "Refunds are paid within 14 days of the request. Shipping costs are not refunded.",
  });
  const billing = await create(key, "agents", {
    name: "Billing agent",
    description: "Invoices, refunds and payments",
    knowledge: [{ knowledgebaseId: kb }],
    ...(options.billingModel ? { model: options.billingModel } : {}),
  });
  const support = await create(key, "agents", {
    name: "Support agent",
    description: "Technical problems, outages and errors",
    ...(options.sharedKnowledge ? { knowledge: [{ knowledgebaseId: kb }] } : {}),
    ...(options.supportModel ? { model: options.supportModel } : {}),
  });
  await publish(key, "agents", billing.id);
  await publish(key, "agents", support.id);
  const app = await create(key, "apps", {
    name: "Helpdesk",
    members: [
      { id: billing.id, kind: "agent" },
      { id: support.id, kind: "agent" },
    ],
    orchestrationMode: "supervisor",
    api: { greeting: "Hello! How can I help?" },
    ...options.app,
  });
  await publish(key, "apps", app.id);
  return { tenant, key, appId: app.id, billingAgentId: billing.id, supportAgentId: support.id };
}

/**
 * An app whose one agent (`agent`: its name, model, knowledge…) has the published "Order lookup"
 * flow attached, for the tool-calling suites: the flow answers "Order <order> ships tomorrow".
 */
export async function orderLookupApp(key: string, agent: Record<string, unknown>, appName: string): Promise<string> {
  const flow = await create(key, "flows", {
    name: "Order lookup",
    description: "Looks up an order by its number",
    inputs: [{ key: "order", label: "Order number", type: "text", required: true }],
    nodes: [
      { id: "start", type: "trigger_start", data: {} },
      { id: "out", type: "output", data: { value: "Order {{inputs.order}} ships tomorrow" } },
    ],
  });
  await publish(key, "flows", flow.id);
  return oneAgentApp(key, { ...agent, flows: [flow.id] }, { name: appName, orchestrationMode: "sequential" });
}

/** The organization's provider `claude` of kind anthropic at `fake`; answers its one chat model's id. */
export async function addClaudeProvider(tenant: Tenant, fake: FakeAnthropic, apiKey = "sk-ant-test"): Promise<string> {
  await createModelProvider(getDb(), tenant.operator, {
    slug: "claude",
    kind: "anthropic",
    name: "Claude",
    baseUrl: fake.baseURL,
    apiKey,
    models: [{ id: "claude-test", kind: "chat" }],
  });
  return "claude/claude-test";
}

export async function credits(tenant: Tenant): Promise<number> {
  const { getDb } = await import("@/server/db");
  return (await getDb().organization.findUniqueOrThrow({ where: { id: tenant.organization.id } })).credits;
}

export function converse(key: string, appId: string, body: Record<string, unknown>) {
  return api("POST", `/apps/${appId}/conversation`, { key, body });
}

/**
 * The events of a `text/event-stream` response, parsed by eventsource-parser: every one, or the
 * first `count` and then it hangs up (a dropped connection).
 */
export async function readEvents(response: Response, count = Infinity): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  while (events.length < count) {
    const chunk = await reader.read();
    if (chunk.done) break;
    parser.feed(chunk.value);
  }
  await reader.cancel();
  return events.slice(0, count);
}

/** The reply text the `delta` events carried, joined. */
export function deltaText(events: EventSourceMessage[]): string {
  return events
    .filter((event) => event.event === "delta")
    .map((event) => (JSON.parse(event.data) as { text: string }).text)
    .join("");
}

/**
 * A published app whose one member is a published agent made of `agent` (its name, model,
 * knowledge…); `app` holds the app's own fields (its name, orchestration mode…).
 */
export async function oneAgentApp(
  key: string,
  agent: Record<string, unknown>,
  app: Record<string, unknown> & { name: string },
): Promise<string> {
  const member = await create(key, "agents", agent);
  await publish(key, "agents", member.id);
  const made = await create(key, "apps", { ...app, members: [{ id: member.id, kind: "agent" }] });
  await publish(key, "apps", made.id);
  return made.id as string;
}

/** A published app of one agent with no tools: no flows, no knowledge, no integrations. */
export function plainApp(tenant: Tenant, model = "plain-model"): Promise<string> {
  return oneAgentApp(
    tenant.orgKey.secret,
    { name: "Plain agent", model },
    { name: "Plain app", orchestrationMode: "sequential" },
  );
}

/** The names of the prepared statements `call` sent on the pool (Prisma's come unnamed), the usage recorded after the answer included. */
export async function statementsOf(call: () => Promise<unknown>): Promise<string[]> {
  const query = vi.spyOn(getDb().pool, "query");
  try {
    await call();
    await new Promise((resolve) => setTimeout(resolve, 300));
    return query.mock.calls.map(([config]) => (config as { name?: string }).name ?? "unnamed");
  } finally {
    query.mockRestore();
  }
}
