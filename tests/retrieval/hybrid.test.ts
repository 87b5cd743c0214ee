// Hybrid search: pages and document chunks embedded in the background by the organization's
// embedding model (a fake OpenAI-compatible /v1/embeddings server with a test embedder), the
// vector ranking fused with the lexical one, and lexical search whenever vectors cannot help.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  // The fake provider listens on 127.0.0.1.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import { getDb } from "@/server/db";
import { drainEmbeddings, unitLength } from "@/server/jobs/embedding";
import { startIndexWorker } from "@/server/jobs/indexing";
import { retrievePassages } from "@/server/runtime/retrieval/passages";
import { createModelProvider, deleteModelProvider, updateModelProvider } from "@/server/services/org/model-providers";
import { testEmbedding } from "../fake-embeddings";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { create, publish } from "../builder-helpers";
import { api, signInCookie, trpc, type Tenant } from "../helpers";
import { drain, newPage, tenantWithKnowledgebase } from "../knowledge-helpers";

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => "", { embed: testEmbedding });
});
afterAll(() => fake.close());

async function withEmbeddingModel(tenant: Tenant, model = "embed-test") {
  return createModelProvider(getDb(), tenant.operator, {
    slug: "acme",
    kind: "openai-compatible",
    name: "Acme AI",
    baseUrl: fake.baseURL,
    models: [{ id: model, kind: "embedding" }],
  });
}

type Row = {
  page_id: string | null;
  chunk_id: string | null;
  model_key: string;
  vector: number[] | null;
  attempts: number;
  last_error: string | null;
  content_hash: string;
};

async function embeddingsOf(organizationId: string): Promise<Row[]> {
  const { rows } = await getDb().pool.query<Row>(
    "select page_id, chunk_id, model_key, vector, attempts, last_error, content_hash from embeddings where organization_id = $1::uuid order by page_id, chunk_id",
    [organizationId],
  );
  return rows;
}

async function search(key: string, kbId: string, query: string, kinds = ["pages", "sources"]) {
  const response = await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query, kinds } });
  expect(response.status).toBe(200);
  return response.body.results as { id: string; kind: string; title: string; snippet: string; score: number }[];
}

/** Lets failed rows be tried again now rather than after their backoff. */
async function backoffPassed(organizationId: string) {
  await getDb().pool.query("update embeddings set run_after = now() where organization_id = $1::uuid", [
    organizationId,
  ]);
}

describe("background embedding", () => {
  it("embeds every page and document chunk of an organization with an embedding model, at unit length, with the model's key", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    await withEmbeddingModel(tenant);
    const page = await newPage(key, kbId, { title: "Cars", markdown: "Book a car from the fleet portal." });
    await api("POST", `/knowledgebases/${kbId}/sources`, {
      key,
      body: { name: "Handbook", contentMarkdown: "# Handbook\n\n## Travel\n\nKeep every receipt." },
    });
    await drain();
    expect(await embeddingsOf(tenant.organization.id)).toEqual([]);

    await drainEmbeddings(getDb());
    const rows = await embeddingsOf(tenant.organization.id);
    expect(rows.filter((row) => row.page_id === page)).toHaveLength(1);
    expect(rows.filter((row) => row.chunk_id !== null).length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row).toMatchObject({ model_key: "acme/embed-test", attempts: 1, last_error: null });
      expect(Math.hypot(...row.vector!)).toBeCloseTo(1, 5);
    }
    const pageRow = rows.find((row) => row.page_id === page)!;
    expect(pageRow.vector).toEqual(
      unitLength(testEmbedding("Cars\n\nBook a car from the fleet portal.")).map((x) => expect.closeTo(x, 5)),
    );
  });

  it("the server's index worker embeds once documents are indexed", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    await withEmbeddingModel(tenant);
    const source = (
      await api("POST", `/knowledgebases/${kbId}/sources`, {
        key: tenant.orgKey.secret,
        body: { name: "Rules", contentMarkdown: "# Rules\n\nA physician signs." },
      })
    ).body.source.id;
    const worker = startIndexWorker(getDb(), { pollMs: 20, embeddingPollMs: 20 });
    try {
      await vi.waitFor(
        async () => {
          const { rows } = await getDb().pool.query(
            "select e.vector from embeddings e join source_chunks c on c.id = e.chunk_id where c.source_id = $1::uuid",
            [source],
          );
          expect(rows[0]?.vector).toHaveLength(256);
        },
        { timeout: 30_000, interval: 100 },
      );
    } finally {
      await worker.stop();
    }
  });

  it("never embeds for an organization without an embedding model", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    await newPage(tenant.orgKey.secret, kbId, { title: "Cars", markdown: "Book a car." });
    const before = fake.embeddingRequests.length;
    await drainEmbeddings(getDb());
    expect(await embeddingsOf(tenant.organization.id)).toEqual([]);
    expect(fake.embeddingRequests.slice(before).flat()).not.toContain("Cars\n\nBook a car.");
  });

  it("re-embeds a page when its content changes and everything when the model changes", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const provider = await withEmbeddingModel(tenant);
    const page = await newPage(key, kbId, { title: "Cars", markdown: "Book a car." });
    const other = await newPage(key, kbId, { title: "Bread", markdown: "Bake it." });
    await drainEmbeddings(getDb());
    const [first] = (await embeddingsOf(tenant.organization.id)).filter((row) => row.page_id === page);

    const edited = await api("PATCH", `/knowledgebases/${kbId}/pages/${page}`, {
      key,
      body: { patch: [{ op: "replace", oldString: "a car", newString: "a bicycle" }] },
    });
    expect(edited.status).toBe(200);
    const before = fake.embeddingRequests.length;
    await drainEmbeddings(getDb());
    expect(fake.embeddingRequests.slice(before).flat()).toEqual(["Cars\n\nBook a bicycle."]);
    const [second] = (await embeddingsOf(tenant.organization.id)).filter((row) => row.page_id === page);
    expect(second!.content_hash).not.toBe(first!.content_hash);
    expect(second!.vector).not.toEqual(first!.vector);

    await updateModelProvider(getDb(), tenant.operator, {
      providerId: provider.id,
      models: [{ id: "embed-v2", kind: "embedding" }],
    });
    await drainEmbeddings(getDb());
    const rows = await embeddingsOf(tenant.organization.id);
    expect(rows.map((row) => [row.page_id, row.model_key, row.attempts])).toEqual(
      [
        [page, "acme/embed-v2", 1],
        [other, "acme/embed-v2", 1],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
  });

  it("retries a failing endpoint after a backoff, at most 3 attempts, and embeds once it answers", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    await withEmbeddingModel(tenant);
    const page = await newPage(tenant.orgKey.secret, kbId, { title: "Cars", markdown: "Book a car." });
    fake.failWith(500);
    try {
      await drainEmbeddings(getDb());
      let [row] = await embeddingsOf(tenant.organization.id);
      expect(row).toMatchObject({ page_id: page, vector: null, attempts: 1, last_error: expect.any(String) });
      // Not due again before its backoff.
      await drainEmbeddings(getDb());
      [row] = await embeddingsOf(tenant.organization.id);
      expect(row!.attempts).toBe(1);

      await backoffPassed(tenant.organization.id);
      await drainEmbeddings(getDb());
      [row] = await embeddingsOf(tenant.organization.id);
      expect(row).toMatchObject({ vector: null, attempts: 2 });
    } finally {
      fake.failWith(null);
    }
    await backoffPassed(tenant.organization.id);
    await drainEmbeddings(getDb());
    const [row] = await embeddingsOf(tenant.organization.id);
    expect(row).toMatchObject({ attempts: 3, last_error: null });
    expect(row!.vector).toHaveLength(256);
  });

  it("gives up after 3 failed attempts until the content or the model changes", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    await withEmbeddingModel(tenant);
    await newPage(tenant.orgKey.secret, kbId, { title: "Cars", markdown: "Book a car." });
    fake.failWith(500);
    try {
      for (let attempt = 0; attempt < 4; attempt++) {
        await backoffPassed(tenant.organization.id);
        await drainEmbeddings(getDb());
      }
    } finally {
      fake.failWith(null);
    }
    await backoffPassed(tenant.organization.id);
    await drainEmbeddings(getDb());
    const [row] = await embeddingsOf(tenant.organization.id);
    expect(row).toMatchObject({ vector: null, attempts: 3 });
  });
});

describe("stale vectors", () => {
  it("drops a page's vector as its content changes, so search never ranks the new text by the old one's meaning", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    await withEmbeddingModel(tenant);
    await newPage(key, kbId, { title: "Car park", markdown: "The car park opens at seven." });
    const fleet = await newPage(key, kbId, {
      title: "Fleet",
      markdown: "Every vehicle of the fleet is booked in the portal.",
    });
    await drainEmbeddings(getDb());
    expect((await search(key, kbId, "car")).map((r) => r.id)).toContain(fleet);

    const edited = await api("PATCH", `/knowledgebases/${kbId}/pages/${fleet}`, {
      key,
      body: {
        patch: [
          {
            op: "replace",
            oldString: "Every vehicle of the fleet is booked in the portal.",
            newString: "Flour, water and salt make a loaf.",
          },
        ],
      },
    });
    expect(edited.status).toBe(200);
    // Before the worker runs again: no vector for the page, and the old meaning no longer finds it.
    expect((await embeddingsOf(tenant.organization.id)).filter((row) => row.page_id === fleet)).toEqual([]);
    expect((await search(key, kbId, "car")).map((r) => r.id)).not.toContain(fleet);

    await drainEmbeddings(getDb());
    const [row] = (await embeddingsOf(tenant.organization.id)).filter((r) => r.page_id === fleet);
    expect(row!.vector).toEqual(
      unitLength(testEmbedding("Fleet\n\nFlour, water and salt make a loaf.")).map((x) => expect.closeTo(x, 5)),
    );
  });

  it("drops the vectors of the old model when the embedding model changes or goes, and only the organization's", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const other = await tenantWithKnowledgebase();
    const provider = await withEmbeddingModel(tenant);
    await withEmbeddingModel(other.tenant);
    await newPage(tenant.orgKey.secret, kbId, { title: "Cars", markdown: "Book a car." });
    await newPage(other.tenant.orgKey.secret, other.kbId, { title: "Bread", markdown: "Bake it." });
    await drainEmbeddings(getDb());
    const theirs = await embeddingsOf(other.tenant.organization.id);
    expect(theirs).toHaveLength(1);

    await updateModelProvider(getDb(), tenant.operator, {
      providerId: provider.id,
      models: [{ id: "embed-v2", kind: "embedding" }],
    });
    expect(await embeddingsOf(tenant.organization.id)).toEqual([]);
    await drainEmbeddings(getDb());
    expect((await embeddingsOf(tenant.organization.id)).map((row) => row.model_key)).toEqual(["acme/embed-v2"]);

    // A chat model only: no embedding model left, no vectors left.
    await updateModelProvider(getDb(), tenant.operator, {
      providerId: provider.id,
      models: [{ id: "chat", kind: "chat" }],
    });
    expect(await embeddingsOf(tenant.organization.id)).toEqual([]);
    await updateModelProvider(getDb(), tenant.operator, {
      providerId: provider.id,
      models: [{ id: "embed-v2", kind: "embedding" }],
    });
    await drainEmbeddings(getDb());
    await deleteModelProvider(getDb(), tenant.operator, { providerId: provider.id });
    expect(await embeddingsOf(tenant.organization.id)).toEqual([]);
    expect(await embeddingsOf(other.tenant.organization.id)).toEqual(theirs);
  });

  it("a failing embedding call fails at once: one request, no retry inside the call (the queue retries later)", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    await withEmbeddingModel(tenant);
    await newPage(tenant.orgKey.secret, kbId, { title: "Cars", markdown: "Book a car." });
    const before = fake.embeddingRequests.length;
    fake.failWith(500);
    const started = performance.now();
    try {
      await drainEmbeddings(getDb());
    } finally {
      fake.failWith(null);
    }
    // The provider client's own retry waits 2 s first.
    expect(performance.now() - started).toBeLessThan(2000);
    expect(fake.embeddingRequests.length - before).toBe(1);
    expect((await embeddingsOf(tenant.organization.id))[0]).toMatchObject({ vector: null, attempts: 1 });
  });
});

describe("hybrid ranking", () => {
  it("adds a passage found only by meaning after the passages both rankings found, and leaves out unrelated ones", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    await withEmbeddingModel(tenant);
    const both = await newPage(key, kbId, {
      title: "Car park",
      markdown: "The car park opens at seven; park your car on level two.",
    });
    const meaningOnly = await newPage(key, kbId, {
      title: "Fleet",
      markdown: "Every vehicle of the fleet is booked in the portal; a vehicle needs a **booking**.",
    });
    await newPage(key, kbId, { title: "Bread", markdown: "Flour, water and salt make a loaf." });

    // Lexical only before the vectors exist.
    expect((await search(key, kbId, "car")).map((r) => r.id)).toEqual([both]);
    await drainEmbeddings(getDb());
    const results = await search(key, kbId, "car");
    expect(results.map((r) => r.id)).toEqual([both, meaningOnly]);
    // Its own bold is dropped: a client reads every "**" as the mark of a match, and none matched.
    expect(results[1]!.snippet).toContain("a vehicle needs a booking.");
    expect(results[1]!.snippet).not.toContain("**");

    // Agents and flows' knowledge_search use the same function.
    const { passages } = await retrievePassages(getDb(), tenant.organization.id, [kbId], "car");
    expect(passages.map((p) => p.title)).toEqual(["Car park", "Fleet"]);

    // In a conversation, with the providers read in the app's own statement.
    const agent = await create(key, "agents", { name: "Fleet agent", knowledge: [{ knowledgebaseId: kbId }] });
    await publish(key, "agents", agent.id);
    const app = await create(key, "apps", {
      name: "Fleet desk",
      members: [{ id: agent.id, kind: "agent" }],
      orchestrationMode: "broadcast",
    });
    await publish(key, "apps", app.id);
    const turn = await api("POST", `/apps/${app.id}/conversation`, { key, body: { message: "car" } });
    expect(turn.status).toBe(200);
    const [execution] = (await api("GET", `/executions?itemId=${app.id}`, { key })).body.executions;
    const member = execution.trace.find((entry: { kind: string }) => entry.kind === "agent");
    expect(member.passages).toEqual(["Car park", "Fleet"]);
  });

  it("finds a document chunk by meaning, in the search API's one-result-per-document form", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    await withEmbeddingModel(tenant);
    const source = (
      await api("POST", `/knowledgebases/${kbId}/sources`, {
        key,
        body: { name: "Rules", contentMarkdown: "# Rules\n\n## Travel\n\nA physician must sign the form." },
      })
    ).body.source.id;
    await drain();
    await drainEmbeddings(getDb());
    expect((await search(key, kbId, "doctor", ["sources"])).map((r) => [r.kind, r.id])).toEqual([["source", source]]);

    // One chunk found by its words, another of the same document by meaning: the document once.
    const fleet = (
      await api("POST", `/knowledgebases/${kbId}/sources`, {
        key,
        body: {
          name: "Fleet",
          contentMarkdown:
            "# Parking\n\nThe car park opens at seven.\n\n# Booking\n\nEvery vehicle is booked; a vehicle needs a booking.",
        },
      })
    ).body.source.id;
    await drain();
    await drainEmbeddings(getDb());
    expect((await getDb().pool.query("select 1 from source_chunks where source_id = $1::uuid", [fleet])).rowCount).toBe(
      2,
    );
    expect((await search(key, kbId, "car", ["sources"])).map((r) => r.id)).toEqual([fleet]);
  });

  it("never uses another organization's vectors, even a row naming this organization", async () => {
    const mine = await tenantWithKnowledgebase();
    const theirs = await tenantWithKnowledgebase();
    await withEmbeddingModel(mine.tenant);
    await withEmbeddingModel(theirs.tenant);
    await newPage(mine.tenant.orgKey.secret, mine.kbId, {
      title: "Bread",
      markdown: "Flour, water and salt make a loaf. Any vehicle?",
    });
    const secret = await newPage(theirs.tenant.orgKey.secret, theirs.kbId, {
      title: "Secret fleet",
      markdown: "Every vehicle of the fleet.",
    });
    await drainEmbeddings(getDb());
    // A row forged into this organization and knowledgebase, pointing at the other's page.
    await getDb().pool.query("delete from embeddings where page_id = $1::uuid", [secret]);
    await getDb().pool.query(
      `insert into embeddings (id, organization_id, knowledgebase_id, page_id, content_hash, model_key, vector)
       values (gen_random_uuid(), $1::uuid, $2::uuid, $3::uuid, 'x', 'acme/embed-test', $4::real[])`,
      [mine.tenant.organization.id, mine.kbId, secret, `{${unitLength(testEmbedding("car")).join(",")}}`],
    );
    const ids = (await search(mine.tenant.orgKey.secret, mine.kbId, "car")).map((r) => r.id);
    expect(ids).not.toContain(secret);
    const { passages } = await retrievePassages(getDb(), mine.tenant.organization.id, [mine.kbId, theirs.kbId], "car");
    expect(passages.map((p) => p.title)).not.toContain("Secret fleet");
  });

  it("without an embedding model, and when the question cannot be embedded, search is exactly lexical and never fails", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const both = await newPage(key, kbId, { title: "Car park", markdown: "The car park opens at seven." });
    await newPage(key, kbId, { title: "Fleet", markdown: "Every vehicle of the fleet is booked in the portal." });
    const lexical = await search(key, kbId, "car");
    expect(lexical.map((r) => r.id)).toEqual([both]);

    await withEmbeddingModel(tenant);
    await drainEmbeddings(getDb());
    expect(await search(key, kbId, "car")).toHaveLength(2);
    fake.failWith(503);
    const before = fake.embeddingRequests.length;
    try {
      expect(await search(key, kbId, "car")).toEqual(lexical);
      // One attempt: the provider client's own retry would hold the answer for 2 s first.
      expect(fake.embeddingRequests.length - before).toBe(1);
    } finally {
      fake.failWith(null);
    }
  });

  it("the console's retrieval test says which path answered and why", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    await newPage(tenant.orgKey.secret, kbId, { title: "Car park", markdown: "The car park opens at seven." });
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const path = async () => {
      const answer = await trpc(
        "query",
        "knowledge.testRetrieval",
        { knowledgebaseId: kbId, question: "car" },
        { cookie },
      );
      expect(answer.status).toBe(200);
      expect(answer.body.result.data.passages.map((p: { title: string }) => p.title)).toEqual(["Car park"]);
      return answer.body.result.data.path;
    };
    expect(await path()).toEqual({ method: "lexical", reason: "no_embedding_model" });

    await withEmbeddingModel(tenant);
    expect(await path()).toEqual({ method: "lexical", reason: "no_vectors", model: "acme/embed-test" });

    await drainEmbeddings(getDb());
    expect(await path()).toEqual({ method: "hybrid", reason: "fused", model: "acme/embed-test" });

    fake.failWith(503);
    try {
      expect(await path()).toEqual({ method: "lexical", reason: "question_not_embedded", model: "acme/embed-test" });
    } finally {
      fake.failWith(null);
    }
  });

  it("a knowledgebase set to searchMode lexical never embeds the question, and says so", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const carPark = await newPage(key, kbId, { title: "Car park", markdown: "The car park opens at seven." });
    await newPage(key, kbId, { title: "Fleet", markdown: "Every vehicle of the fleet is booked in the portal." });
    await withEmbeddingModel(tenant);
    await drainEmbeddings(getDb());
    expect((await api("GET", `/knowledgebases/${kbId}`, { key })).body.searchMode).toBe("auto");
    expect(await search(key, kbId, "car")).toHaveLength(2);

    const patched = await api("PATCH", `/knowledgebases/${kbId}`, { key, body: { searchMode: "lexical" } });
    expect(patched.status).toBe(200);
    expect(patched.body.knowledgebase.searchMode).toBe("lexical");
    const before = fake.embeddingRequests.length;
    expect((await search(key, kbId, "car")).map((r) => r.id)).toEqual([carPark]);
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const answer = await trpc(
      "query",
      "knowledge.testRetrieval",
      { knowledgebaseId: kbId, question: "car" },
      { cookie },
    );
    expect(answer.body.result.data.path).toEqual({ method: "lexical", reason: "lexical_by_setting" });
    expect(fake.embeddingRequests.length).toBe(before);

    const refused = await api("PATCH", `/knowledgebases/${kbId}`, { key, body: { searchMode: "semantic" } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("invalid_request");
    expect((await api("GET", `/knowledgebases/${kbId}`, { key })).body.searchMode).toBe("lexical");

    const created = await api("POST", "/knowledgebases", { key, body: { name: "Codes", searchMode: "lexical" } });
    expect(created.status).toBe(201);
    expect(created.body.knowledgebase.searchMode).toBe("lexical");
  });
});
