// `npm run eval:retrieval`: loads the corpus (eval/retrieval/corpus, see README.md) into a fresh
// embedded database through the real ingestion path (createSource, the indexing queue and its
// chunker), asks every question of questions.tsv and prints, per method, recall@5 and MRR@10
// (a hit is any of the question's labelled documents), passage@5 (a top-5 passage sits under
// the labelled heading; the new methods only) and latency.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureDatabase, startEmbeddedCluster } from "@/server/database/embedded";
import { migrate } from "@/server/database/migrate";
import { closeDb, createDb, type Db } from "@/server/db";
import { chunkText } from "@/server/jobs/extract";
import { drainEmbeddings } from "@/server/jobs/embedding";
import { drainIndexJobs } from "@/server/jobs/indexing";
import { createKnowledgebase } from "@/server/services/knowledgebases";
import { createModelProvider } from "@/server/services/model-providers";
import { createOrganization } from "@/server/services/organizations";
import { retrievalSql, retrieve } from "@/server/services/retrieval";
import { searchKnowledgebase } from "@/server/services/search";
import { createSource } from "@/server/services/sources";
import { testEmbedding } from "../../tests/fake-embeddings";
import { startFakeOpenAI } from "../../tests/fake-openai";

// The hybrid methods' embeddings server listens on 127.0.0.1.
process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";

const here = path.dirname(new URL(import.meta.url).pathname);

interface Question {
  question: string;
  documents: string[];
  heading: string;
}

function readQuestions(): Question[] {
  return readFileSync(path.join(here, "questions.tsv"), "utf8")
    .split("\n")
    .filter((line) => line.trim() && !line.startsWith("#"))
    .map((line) => {
      const [question, documents, heading] = line.split("\t");
      return { question: question!, documents: documents!.split(","), heading: heading ?? "" };
    });
}

// The rankings before issue 18, kept here as the baseline: the search API required every word
// (websearch_to_tsquery) and agents ORed them; both ranked with ts_rank, English only, over
// chunks cut by size alone.
const OLD_SEARCH_SQL = `
  with q as (select websearch_to_tsquery('english', $2) as query),
  hits as (select c.source_id, ts_rank(c.tsv, q.query) as score from source_chunks c, q where c.knowledgebase_id = $1 and c.tsv @@ q.query),
  best as (select distinct on (source_id) source_id, score from hits order by source_id, score desc)
  select s.name as title from best b join sources s on s.id = b.source_id order by b.score desc, b.source_id limit 10`;
const OLD_AGENT_SQL = `
  with q as (select replace(plainto_tsquery('english', $2)::text, '&', '|')::tsquery as query)
  select s.name as title from source_chunks c join sources s on s.id = c.source_id, q
  where c.knowledgebase_id = $1 and c.tsv @@ q.query order by ts_rank(c.tsv, q.query) desc limit 10`;

interface Method {
  name: string;
  /** Ranked document names, and passages' heading paths where the method returns passages. */
  run: (question: string) => Promise<{ titles: string[]; headings?: string[] }>;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function measure(method: Method, questions: Question[]) {
  let recall = 0;
  let reciprocal = 0;
  let passages = 0;
  let empty = 0;
  const latencies: number[] = [];
  const misses: string[] = [];
  for (const q of questions) {
    const started = performance.now();
    const { titles, headings } = await method.run(q.question);
    latencies.push(performance.now() - started);
    const unique = [...new Set(titles)];
    if (unique.length === 0) empty++;
    const rank = unique.slice(0, 10).findIndex((title) => q.documents.includes(title));
    if (rank >= 0 && rank < 5) recall++;
    else misses.push(`${q.question} -> ${unique.slice(0, 3).join(", ") || "(nothing)"}`);
    if (rank >= 0) reciprocal += 1 / (rank + 1);
    if (headings && titles.slice(0, 5).some((title, i) => q.documents.includes(title) && headings[i]!.includes(q.heading))) passages++;
  }
  const n = questions.length;
  return {
    method: method.name,
    "recall@5": +(recall / n).toFixed(3),
    "MRR@10": +(reciprocal / n).toFixed(3),
    "passage@5": method.name.startsWith("old") ? "-" : +(passages / n).toFixed(3),
    "no result": empty,
    "p50 ms": +percentile(latencies, 50).toFixed(1),
    "p95 ms": +percentile(latencies, 95).toFixed(1),
    misses,
  };
}

async function load(db: Db, organizationId: string, name: string, language: "english" | "simple", files: string[]) {
  const actor = { kind: "operator" as const, organizationId };
  const { knowledgebase } = await createKnowledgebase(db, actor, { name, language });
  for (const file of files) {
    const markdown = readFileSync(path.join(here, "corpus", file), "utf8");
    await createSource(db, actor, { knowledgebaseId: knowledgebase.id, name: file.replace(/\.md$/, ""), contentMarkdown: markdown }, "api");
  }
  await drainIndexJobs(db, {}, 120_000);
  // Statistics as autovacuum would gather them on a live server.
  await db.$executeRawUnsafe("analyze");
  return knowledgebase.id;
}

async function main() {
  const started = Date.now();
  const root = mkdtempSync(path.join(os.tmpdir(), "atrium-eval-"));
  // PostgreSQL runs as the `postgres` user when we are root; it must be able to reach its directory.
  chmodSync(root, 0o755);
  const cluster = await startEmbeddedCluster(path.join(root, "postgres"), { ephemeral: true });
  try {
    await ensureDatabase(cluster.adminUrl, "eval");
    await migrate(cluster.urlFor("eval"));
    const db = createDb(cluster.urlFor("eval"));
    try {
      const files = readdirSync(path.join(here, "corpus")).filter((f) => f.endsWith(".md")).sort();
      const questions = readQuestions();
      const organization = await createOrganization(db, { name: "Retrieval evaluation", credits: 1_000_000 });
      const actor = { kind: "operator" as const, organizationId: organization.id };
      const english = await load(db, organization.id, "english", "english", files);
      if (process.argv.includes("--explain")) {
        // The ranking statement's plan for a few questions, to find where its time goes.
        for (const q of questions.slice(0, 3)) {
          const plan = await db.pool.query({
            text: `explain (analyze, buffers) ${retrievalSql()}`,
            values: [[english], organization.id, q.question, 10, true, true, true, 4000, "", 0],
          });
          console.log(`\n${q.question}\n${plan.rows.map((row) => row["QUERY PLAN"]).join("\n")}`);
        }
        return;
      }
      const simple = await load(db, organization.id, "simple", "simple", files);
      // The baseline's chunks as the old chunker cut them (by size alone, no headings).
      const baseline = await load(db, organization.id, "baseline", "english", files);
      await db.$executeRaw`delete from source_chunks where knowledgebase_id = ${baseline}::uuid`;
      for (const source of await db.source.findMany({ where: { knowledgebaseId: baseline }, select: { id: true, text: true } })) {
        const chunks = chunkText(source.text ?? "");
        await db.$executeRaw`
          insert into source_chunks (id, source_id, knowledgebase_id, position, text)
          select gen_random_uuid(), ${source.id}::uuid, ${baseline}::uuid, c.position, c.text
          from unnest(${chunks.map((_, i) => i)}::int[], ${chunks}::text[]) as c(position, text)`;
      }
      // Hybrid: the same documents in an organization whose embedding model is the TEST embedder
      // (hashed words and trigrams, tests/fake-embeddings.ts, served by tests/fake-openai.ts): no real embedding weights here.
      const embedder = await startFakeOpenAI(() => "", { embed: testEmbedding });
      const hybridOrganization = await createOrganization(db, { name: "Retrieval evaluation, hybrid", credits: 1_000_000 });
      const hybridActor = { kind: "operator" as const, organizationId: hybridOrganization.id };
      await createModelProvider(db, hybridActor, {
        slug: "test",
        kind: "openai-compatible",
        name: "Test embedder",
        baseUrl: embedder.baseURL,
        models: [{ id: "hashed-words", kind: "embedding" }],
      });
      const hybrid = await load(db, hybridOrganization.id, "hybrid", "english", files);
      await drainEmbeddings(db);
      const [{ count }] = await db.$queryRaw<[{ count: number }]>`select count(*)::int as count from source_chunks where knowledgebase_id = ${english}::uuid`;
      const loadedSeconds = ((Date.now() - started) / 1000).toFixed(1);

      const oldQuery = (sql: string) => async (question: string) => ({
        titles: (await db.pool.query<{ title: string }>(sql, [baseline, question])).rows.map((row) => row.title),
      });
      const searchApi = (kbId: string, searchActor = actor) => async (question: string) => {
        const { results } = await searchKnowledgebase(db, searchActor, { knowledgebaseId: kbId, query: question, kinds: ["sources"], limit: 10 });
        return { titles: results.map((r) => r.title), headings: results.map((r) => r.heading) };
      };
      const agent = (kbId: string, organizationId = organization.id) => async (question: string) => {
        const hits = await retrieve(db, organizationId, { knowledgebaseIds: [kbId], query: question, limit: 10 });
        return { titles: hits.map((h) => h.title), headings: hits.map((h) => h.heading) };
      };
      const methods: Method[] = [
        { name: "old: search API (every word, ts_rank)", run: oldQuery(OLD_SEARCH_SQL) },
        { name: "old: agent retrieval (any word, ts_rank)", run: oldQuery(OLD_AGENT_SQL) },
        { name: "new: search API, language english", run: searchApi(english) },
        { name: "new: search API, language simple", run: searchApi(simple) },
        { name: "new: agent retrieval, language english", run: agent(english) },
        { name: "hybrid, TEST embedder: search API", run: searchApi(hybrid, hybridActor) },
        { name: "hybrid, TEST embedder: agent retrieval", run: agent(hybrid, hybridOrganization.id) },
      ];
      // One warm-up pass so that latency measures searching, not the first plan or cold cache.
      for (const method of methods) for (const q of questions.slice(0, 10)) await method.run(q.question);
      const results = [];
      for (const method of methods) results.push(await measure(method, questions));

      console.log(`Corpus: ${files.length} documents, ${count} chunks per knowledgebase; ${questions.length} questions. Loaded in ${loadedSeconds} s.`);
      console.table(results.map(({ misses: _misses, ...row }) => row));
      if (process.argv.includes("--misses")) for (const r of results) console.log(`\n${r.method}: misses\n  ${r.misses.join("\n  ")}`);
      await embedder.close();
    } finally {
      await closeDb(db);
    }
  } finally {
    await cluster.release();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
