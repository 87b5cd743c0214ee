// Model providers per organization: admins connect them (console, CLI), the API key is sealed at
// rest and never shown, their models appear in GET /models as `<slug>/<model id>` for that
// organization only, agents run on them, and a failing provider is a 502 that charges nothing.
import { afterAll, beforeAll, expect, it, vi } from "vitest";

const SECRET = vi.hoisted(() => {
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  // The fake provider listens on 127.0.0.1.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
  return "sk-upstream-very-secret-value";
});

import { getDb } from "@/server/db";
import { COMMANDS, parseFlags } from "@/cli/commands";
import { createModelProvider, listModelProviders, updateModelProvider } from "@/server/services/org/model-providers";
import { embeddingModelFor } from "@/server/runtime/models";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import {
  addPerson,
  api,
  consoleHandler,
  newOrganization,
  trpc,
  trpcErrorCode,
  signInCookie,
  type Tenant,
} from "../helpers";
import { converse, credits, oneAgentApp } from "../runtime-helpers";

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => "Answered by the organization's own provider.");
});
afterAll(() => fake.close());

async function withProvider(tenant: Tenant, slug = "acme") {
  return createModelProvider(getDb(), tenant.operator, {
    slug,
    kind: "openai-compatible",
    name: "Acme AI",
    baseUrl: fake.baseURL,
    apiKey: SECRET,
    models: [
      { id: "gpt-org", kind: "chat" },
      { id: "embed-org", kind: "embedding" },
    ],
  });
}

function appOn(tenant: Tenant, model: string) {
  return oneAgentApp(
    tenant.orgKey.secret,
    { name: "Org agent", model },
    { name: "Org app", orchestrationMode: "sequential" },
  );
}

it("lists an organization's chat models in GET /models as <slug>/<model id>, for that organization only", async () => {
  const tenant = await newOrganization();
  const other = await newOrganization();
  await withProvider(tenant);
  const mine = await api("GET", "/models", { key: tenant.orgKey.secret });
  expect(mine.status).toBe(200);
  expect(mine.body.models).toContainEqual({
    id: "acme/gpt-org",
    name: "Acme AI: gpt-org",
    provider: "acme",
    acceptsImages: false,
  });
  expect(mine.body.models.map((m: { id: string }) => m.id)).not.toContain("acme/embed-org");
  const theirs = await api("GET", "/models", { key: other.orgKey.secret });
  expect(theirs.body.models.map((m: { id: string }) => m.id)).toEqual(["atrium-offline"]);
});

it("keeps the API key sealed at rest and out of every answer", async () => {
  const tenant = await newOrganization();
  const created = await withProvider(tenant);
  expect(created.hasApiKey).toBe(true);
  expect(JSON.stringify(created)).not.toContain(SECRET);
  expect(JSON.stringify(await listModelProviders(getDb(), tenant.operator))).not.toContain(SECRET);
  const row = await getDb().modelProvider.findUniqueOrThrow({ where: { id: created.id } });
  expect(row.apiKeyCiphertext).toMatch(/^v1:/);
  expect(row.apiKeyCiphertext).not.toContain(SECRET);
  const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
  const listed = await trpc("query", "modelProviders.list", undefined, { cookie });
  expect(listed.status).toBe(200);
  expect(JSON.stringify(listed.body)).not.toContain(SECRET);
});

it("is managed by admins only, never with API keys", async () => {
  const tenant = await newOrganization();
  const builder = await addPerson(tenant.operator, "member");
  const cookie = await signInCookie(builder.email, builder.password);
  const input = { slug: "x", kind: "openai-compatible", name: "X", baseUrl: fake.baseURL, models: [{ id: "m" }] };
  const refused = await trpc("mutation", "modelProviders.create", input, { cookie });
  expect(trpcErrorCode(refused)).toBe("forbidden_role");
  // The console door takes sessions only; an API key is no session.
  const byKey = await consoleHandler()(
    new Request("http://localhost/api/trpc/modelProviders.create", {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.orgKey.secret}`, "content-type": "application/json" },
      body: JSON.stringify(input),
    }),
  );
  expect(byKey.status).toBe(401);
  expect(await getDb().modelProvider.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
});

it("accepts an agent on an organization model, refuses another organization's with invalid_model", async () => {
  const tenant = await newOrganization();
  const other = await newOrganization();
  await withProvider(tenant);
  const refused = await api("POST", "/agents", {
    key: other.orgKey.secret,
    body: { name: "Thief", model: "acme/gpt-org" },
  });
  expect(refused.status).toBe(422);
  expect(refused.body.error.code).toBe("invalid_model");
  expect(await getDb().builderItem.count({ where: { organizationId: other.organization.id } })).toBe(0);
  const accepted = await api("POST", "/agents", {
    key: tenant.orgKey.secret,
    body: { name: "Mine", model: "acme/gpt-org" },
  });
  expect(accepted.status).toBe(201);
});

it("runs a conversation on the organization's provider with its key, and charges the call", async () => {
  const tenant = await newOrganization();
  await withProvider(tenant);
  const appId = await appOn(tenant, "acme/gpt-org");
  const before = await credits(tenant);
  const response = await converse(tenant.orgKey.secret, appId, { message: "Hello there" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toBe("Answered by the organization's own provider.");
  const upstream = fake.requests.at(-1)!;
  expect(upstream.model).toBe("gpt-org");
  expect(upstream.authorization).toBe(`Bearer ${SECRET}`);
  expect(await credits(tenant)).toBe(before - 1);
});

it("a failing organization provider answers 502 provider_error, charges nothing and never shows the key", async () => {
  const tenant = await newOrganization();
  await withProvider(tenant);
  const appId = await appOn(tenant, "acme/gpt-org");
  const before = await credits(tenant);
  fake.failWith(500);
  try {
    const response = await converse(tenant.orgKey.secret, appId, { message: "Hello there" });
    expect(response.status).toBe(502);
    expect(response.body.error.code).toBe("provider_error");
    expect(JSON.stringify(response.body)).not.toContain(SECRET);
  } finally {
    fake.failWith(null);
  }
  expect(await credits(tenant)).toBe(before);
});

it("refuses a duplicate slug with conflict, and an Anthropic embedding model", async () => {
  const tenant = await newOrganization();
  await withProvider(tenant);
  await expect(withProvider(tenant)).rejects.toMatchObject({ code: "conflict" });
  await expect(
    createModelProvider(getDb(), tenant.operator, {
      slug: "claude",
      kind: "anthropic",
      name: "Claude",
      models: [{ id: "e", kind: "embedding" }],
    }),
  ).rejects.toMatchObject({ code: "invalid_request" });
  expect(await getDb().modelProvider.count({ where: { organizationId: tenant.organization.id } })).toBe(1);
});

it("finds the organization's embedding model, and none for an organization without one", async () => {
  const tenant = await newOrganization();
  const other = await newOrganization();
  await withProvider(tenant);
  const model = await embeddingModelFor(getDb(), tenant.organization.id);
  expect(model?.modelKey).toBe("acme/embed-org");
  expect(await embeddingModelFor(getDb(), other.organization.id)).toBeNull();
});

it("edits a provider in the console: base URL and models, the key kept when absent, replaced, or removed with null", async () => {
  const tenant = await newOrganization();
  const provider = await withProvider(tenant);
  const moved = await startFakeOpenAI(() => "Answered from the new address.");
  try {
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const edited = await trpc(
      "mutation",
      "modelProviders.update",
      {
        providerId: provider.id,
        name: "Acme AI EU",
        baseUrl: moved.baseURL,
        models: [{ id: "gpt-new", kind: "chat" }],
      },
      { cookie },
    );
    expect(edited.status).toBe(200);
    expect(edited.body.result.data).toMatchObject({
      name: "Acme AI EU",
      baseUrl: moved.baseURL,
      hasApiKey: true,
      models: [{ id: "gpt-new", kind: "chat" }],
    });
    expect(edited.text).not.toContain(SECRET);
    const models = (await api("GET", "/models", { key: tenant.orgKey.secret })).body.models.map(
      (m: { id: string }) => m.id,
    );
    expect(models).toContain("acme/gpt-new");
    expect(models).not.toContain("acme/gpt-org");
    // The new address answers, and the kept key still authenticates the calls.
    const appId = await appOn(tenant, "acme/gpt-new");
    const response = await converse(tenant.orgKey.secret, appId, { message: "Hi" });
    expect(response.body.reply).toBe("Answered from the new address.");
    expect(moved.requests.at(-1)).toMatchObject({ model: "gpt-new", authorization: `Bearer ${SECRET}` });
    await updateModelProvider(getDb(), tenant.operator, { providerId: provider.id, apiKey: "sk-replaced" });
    await converse(tenant.orgKey.secret, appId, { message: "Hi" });
    expect(moved.requests.at(-1)!.authorization).toBe("Bearer sk-replaced");
  } finally {
    await moved.close();
  }
  const removed = await updateModelProvider(getDb(), tenant.operator, { providerId: provider.id, apiKey: null });
  expect(removed.hasApiKey).toBe(false);
  expect((await getDb().modelProvider.findUniqueOrThrow({ where: { id: provider.id } })).apiKeyCiphertext).toBeNull();
  // Builders cannot edit; another organization's provider is not_found.
  const builder = await addPerson(tenant.operator, "member");
  const byBuilder = await trpc(
    "mutation",
    "modelProviders.update",
    { providerId: provider.id, name: "Mine" },
    { cookie: await signInCookie(builder.email, builder.password) },
  );
  expect(trpcErrorCode(byBuilder)).toBe("forbidden_role");
  const other = await newOrganization();
  await expect(
    updateModelProvider(getDb(), other.operator, { providerId: provider.id, name: "Theirs" }),
  ).rejects.toMatchObject({ code: "not_found" });
});

it("is edited with the admin CLI: provider update, never showing the key", async () => {
  const tenant = await newOrganization();
  const provider = await withProvider(tenant);
  const run = (...args: string[]) =>
    COMMANDS["provider update"]!.run(getDb(), parseFlags(COMMANDS["provider update"]!.flags, args)) as Promise<any>;
  // Naming only the chat models keeps the embedding ones.
  const { provider: updated } = await run("--provider", provider.id, "--models", "gpt-a,gpt-b");
  expect(updated).toMatchObject({
    hasApiKey: true,
    models: [
      { id: "gpt-a", kind: "chat" },
      { id: "gpt-b", kind: "chat" },
      { id: "embed-org", kind: "embedding" },
    ],
  });
  expect(JSON.stringify(updated)).not.toContain(SECRET);
  const { provider: keyless } = await run("--provider", provider.id, "--remove-api-key");
  expect(keyless.hasApiKey).toBe(false);
  await expect(run("--provider", provider.id, "--api-key", "k", "--remove-api-key")).rejects.toMatchObject({
    code: "invalid_request",
  });
  await expect(run("--provider", provider.id, "--base-url", "ftp://example.com")).rejects.toMatchObject({
    code: "invalid_request",
  });
});
