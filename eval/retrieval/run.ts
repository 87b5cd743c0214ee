// `npm run eval:retrieval`: loads every labelled set under eval/ (eval/retrieval/sets.ts; each
// its own knowledgebase) into a fresh embedded database through the real ingestion path, asks
// every question and prints recall@1, recall@5, MRR@10, passage@5 and latency per set, half
// (tuning / unseen: tune on the first, decide on the second) and method: the lexical ranking
// through the search API and the agents' retrieval, and hybrid with the TEST embedder.
//   --set a,b      only these sets          --quick    lexical search API only
//   --half unseen  only one half            --misses   list the misses
//   --explain      the ranking statement's plan for the first set's first questions
//   --expand "v;v" also query expansion prototypes (eval/retrieval/expansion.ts)
//   --docscore "v;v" also a document-level score fused with the search API's (eval/retrieval/document-score.ts)
//   --vocab "v;v"  also the search API's ranking with other synonym options, each
//                  "senses,perWord,weight[,absent][,table|both]" (runtime/retrieval/vocabulary.ts; "0,0,0": none;
//                  table: the software table alone, both: the table, then WordNet; unnamed: without
//                  the table entries an earlier report had named; intent0.3: question-intent words
//                  weigh 0.3 of their rarity, intent1: as any word; everyday5:6:0.3: everyday words'
//                  shares from Zipf 5 to 6 down to 0.3, everyday0: off)
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureDatabase, startEmbeddedCluster } from "@/server/database/embedded";
import { migrate } from "@/server/database/migrate";
import { closeDb, createDb, type Db } from "@/server/db";
import { drainEmbeddings } from "@/server/jobs/embedding";
import { createModelProvider } from "@/server/services/org/model-providers";
import { createOrganization } from "@/server/services/org/organizations";
import { retrievalSql } from "@/server/runtime/retrieval/lexical-sql";
import { retrieve } from "@/server/runtime/retrieval/retrieve";
import { statementValues } from "@/server/runtime/retrieval/statement-parameters";
import { searchKnowledgebase } from "@/server/services/knowledge/search";
import { VOCABULARY_DEFAULTS, type VocabularyOptions } from "@/server/runtime/retrieval/vocabulary";
import { testEmbedding } from "../../tests/fake-embeddings";
import { startFakeOpenAI } from "../../tests/fake-openai";
import { documentScoreRanker, parseDocumentScoreVariants } from "./document-score";
import { expandedRanker, parseExpansionVariants } from "./expansion";
import { HALVES, listSets, loadSet, measure, type Half, type Ranker } from "./sets";

// The hybrid methods' embeddings server listens on 127.0.0.1.
process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

const quick = process.argv.includes("--quick");
const onlySets = option("set")?.split(",");
const onlyHalf = option("half") as Half | undefined;
const expansions = parseExpansionVariants(option("expand"));
const documentScores = parseDocumentScoreVariants(option("docscore"));
/**
 * The software table's entries (src/server/runtime/retrieval/software-vocabulary.ts) for the words
 * the previous round's report and its brief had quoted from missed questions ("folder", "froze",
 * "what time it is in tokyo", "screen too dark", "change what a file is called", "let my wife
 * install software"): flag `unnamed` measures the table without them.
 */
const NAMED_BEFORE = new Set(
  "folder subfolder freeze froze frozen hang stuck time clock dark dim bright call called rename family wife husband child kid guest someone people person".split(" "),
);
/** `everyday5:6:0.3` (from, to, floor), `everyday0` (off); VOCABULARY_DEFAULTS' unless given. */
function everydayOption(flag: string | undefined): VocabularyOptions["everyday"] {
  if (!flag) return VOCABULARY_DEFAULTS.everyday;
  const [from, to, floor] = flag.slice("everyday".length).split(":").map(Number);
  return from ? { from, to: to!, floor: floor! } : null;
}
const vocabularies = (option("vocab")?.split(";") ?? []).map((label) => {
  const [senses, perWord, weight, ...flags] = label.split(",");
  const sources = flags.includes("table") ? "table" : flags.includes("both") ? "both" : "wordnet";
  return {
    label,
    options: {
      senses: +senses!,
      perWord: +perWord!,
      weight: +weight!,
      onlyAbsent: flags.includes("absent"),
      sources,
      withoutEntries: flags.includes("unnamed") ? NAMED_BEFORE : undefined,
      intentWeight: +(
        flags.find((flag) => flag.startsWith("intent"))?.slice("intent".length) ?? VOCABULARY_DEFAULTS.intentWeight
      ),
      everyday: everydayOption(flags.find((flag) => flag.startsWith("everyday"))),
    } as const,
  };
});

async function main() {
  const sets = listSets().filter((set) => !onlySets || onlySets.includes(set.name));
  if (sets.length === 0) throw new Error(`No set named ${onlySets?.join(", ")} (sets: ${listSets().map((s) => s.name).join(", ")})`);
  const halves = onlyHalf ? [onlyHalf] : HALVES;
  const root = mkdtempSync(path.join(os.tmpdir(), "atrium-eval-"));
  // PostgreSQL runs as the `postgres` user when we are root; it must be able to reach its directory.
  chmodSync(root, 0o755);
  const cluster = await startEmbeddedCluster(path.join(root, "postgres"), { ephemeral: true });
  const embedder = await startFakeOpenAI(() => "", { embed: testEmbedding });
  try {
    await ensureDatabase(cluster.adminUrl, "eval");
    await migrate(cluster.urlFor("eval"));
    const db = createDb(cluster.urlFor("eval"));
    try {
      const organization = await createOrganization(db, { name: "Retrieval evaluation", credits: 1_000_000 });
      const actor = { kind: "operator" as const, organizationId: organization.id };
      // Hybrid: an organization whose embedding model is the TEST embedder (hashed words and
      // trigrams, tests/fake-embeddings.ts, served by tests/fake-openai.ts): no real weights here.
      const hybridOrganization = await createOrganization(db, { name: "Retrieval evaluation, hybrid", credits: 1_000_000 });
      const hybridActor = { kind: "operator" as const, organizationId: hybridOrganization.id };
      if (!quick)
        await createModelProvider(db, hybridActor, {
          slug: "test",
          kind: "openai-compatible",
          name: "Test embedder",
          baseUrl: embedder.baseURL,
          models: [{ id: "hashed-words", kind: "embedding" }],
        });

      const rows = [];
      const allMisses: string[] = [];
      for (const set of sets) {
        const started = Date.now();
        const lexical = await loadSet(db, organization.id, set);
        if (process.argv.includes("--explain")) {
          await explain(db, lexical, organization.id, set.questions.slice(0, 3).map((q) => q.question));
          return;
        }
        const searchApi = (kbId: string, searchActor = actor): Ranker => async (question) => {
          const { results } = await searchKnowledgebase(db, searchActor, { knowledgebaseId: kbId, query: question, kinds: ["sources"], limit: 10 });
          return { titles: results.map((r) => r.title), headings: results.map((r) => r.heading) };
        };
        const agent = (kbId: string, organizationId: string): Ranker => async (question) => {
          const hits = await retrieve(db, organizationId, { knowledgebaseIds: [kbId], query: question, limit: 10 });
          return { titles: hits.map((h) => h.title), headings: hits.map((h) => h.heading) };
        };
        const methods: [string, Ranker][] = [["lexical: search API", searchApi(lexical)]];
        // The search API's request (sources, one per document) without its charge, with other synonym options.
        for (const { label, options } of vocabularies)
          methods.push([
            `synonyms ${label}`,
            async (question) => {
              const hits = await retrieve(db, organization.id, {
                knowledgebaseIds: [lexical],
                query: question,
                limit: 10,
                kinds: { pages: false, sources: true },
                onePerSource: true,
                vocabulary: options,
              });
              return { titles: hits.map((h) => h.title), headings: hits.map((h) => h.heading) };
            },
          ]);
        for (const variant of documentScores)
          methods.push([
            `document score ${variant.label}`,
            documentScoreRanker(db, organization.id, lexical, searchApi(lexical), variant),
          ]);
        for (const variant of expansions)
          methods.push([`expanded ${variant.label}`, expandedRanker(db, lexical, searchApi(lexical), variant)]);
        if (!quick) {
          methods.push(["lexical: agent retrieval", agent(lexical, organization.id)]);
          const hybrid = await loadSet(db, hybridOrganization.id, set, { name: `${set.name} (hybrid)` });
          await drainEmbeddings(db);
          methods.push(["hybrid, TEST embedder: search API", searchApi(hybrid, hybridActor)]);
        }
        const [{ count }] = await db.$queryRaw<[{ count: number }]>`select count(*)::int as count from source_chunks where knowledgebase_id = ${lexical}::uuid`;
        console.log(`${set.name}: ${set.files.length} documents, ${count} chunks, ${set.questions.length} questions; loaded in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
        // One warm-up pass so that latency measures searching, not the first plan or cold cache.
        for (const [, rank] of methods) for (const q of set.questions.slice(0, 5)) await rank(q.question);
        for (const half of halves) {
          const questions = set.questions.filter((q) => q.half === half);
          for (const [method, rank] of methods) {
            const { misses, ...figures } = await measure(rank, questions);
            rows.push({ set: set.name, half, method, ...figures });
            allMisses.push(...misses.map((miss) => `${set.name} ${half} ${method}: ${miss}`));
          }
        }
      }
      console.table(rows);
      if (process.argv.includes("--misses")) console.log(`\nMisses\n  ${allMisses.join("\n  ")}`);
    } finally {
      await closeDb(db);
    }
  } finally {
    await embedder.close();
    await cluster.release();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The ranking statement's plan for a few questions, to find where its time goes. */
async function explain(db: Db, knowledgebaseId: string, organizationId: string, questions: string[]) {
  for (const question of questions) {
    const plan = await db.pool.query({
      text: `explain (analyze, buffers) ${retrievalSql()}`,
      values: statementValues({
        knowledgebaseIds: [knowledgebaseId],
        organizationId,
        question,
        limit: 10,
        pages: true,
        sources: true,
        onePerSource: true,
        textChars: 4000,
        headline: "",
        credits: 0,
        synonymWords: [],
        synonyms: [],
        synonymWeight: 0,
        onlyAbsent: false,
        lightWords: [],
        lightWeights: [],
      }),
    });
    console.log(`\n${question}\n${plan.rows.map((row) => row["QUERY PLAN"]).join("\n")}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
