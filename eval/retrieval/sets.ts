// The labelled retrieval sets (every folder under eval/ with a corpus/ of markdown documents and a
// questions.tsv), their tuning and unseen halves, and the measures: shared by `npm run
// eval:retrieval` (run.ts) and the CI floor (tests/retrieval/evaluation.test.ts).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { KnowledgebaseLanguage } from "@/schemas/knowledge/knowledgebase";
import type { Db } from "@/server/db";
import { drainIndexJobs } from "@/server/jobs/indexing";
import { createKnowledgebase } from "@/server/services/knowledge/knowledgebases";
import { createSource } from "@/server/services/knowledge/sources";

export const EVAL_ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

export type Half = "tuning" | "unseen";
export const HALVES: Half[] = ["tuning", "unseen"];

export interface Question {
  question: string;
  /** Any of these documents answers it (names without ".md"). */
  documents: string[];
  /** The heading that answers it, when the set labels one. */
  heading: string;
  half: Half;
}

export interface EvalSet {
  name: string;
  dir: string;
  /** Markdown file names of the corpus, sorted. */
  files: string[];
  questions: Question[];
}

const isHalf = (value: string | undefined): value is Half => value === "tuning" || value === "unseen";

/**
 * A set's questions with their half: a `tuning`/`unseen` column when the set has one, else the
 * files tuning.tsv and unseen.tsv, else alternate lines of questions.tsv (the
 * first question tuning, the second unseen, …). Fixed by the files, never by the ranking.
 */
export function readQuestions(dir: string): Question[] {
  const parse = (file: string, fallback?: Half): Question[] =>
    readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line.trim() && !line.startsWith("#"))
      .map((line, index) => {
        const [question, documents, ...rest] = line.split("\t").map((field) => field.trim());
        const half = rest.find(isHalf) ?? fallback ?? (index % 2 === 0 ? "tuning" : "unseen");
        const heading = rest.find((field) => !isHalf(field)) ?? "";
        return { question: question!, documents: documents!.split(",").map((d) => d.trim()), heading, half };
      });
  const tuningFile = path.join(dir, "tuning.tsv");
  const unseenFile = path.join(dir, "unseen.tsv");
  if (existsSync(tuningFile) && existsSync(unseenFile))
    return [...parse(tuningFile, "tuning"), ...parse(unseenFile, "unseen")];
  return parse(path.join(dir, "questions.tsv"));
}

/** Every set under eval/, smallest corpus first. */
export function listSets(): EvalSet[] {
  return readdirSync(EVAL_ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(EVAL_ROOT, entry.name))
    .filter((dir) => existsSync(path.join(dir, "corpus")) && existsSync(path.join(dir, "questions.tsv")))
    .map((dir) => ({
      name: path.basename(dir),
      dir,
      files: readdirSync(path.join(dir, "corpus"))
        .filter((file) => file.endsWith(".md"))
        .sort(),
      questions: readQuestions(dir),
    }))
    .sort((a, b) => a.files.length - b.files.length || a.name.localeCompare(b.name));
}

/** Loads a set's corpus into a new knowledgebase through the real ingestion path (sources, the queue, the chunker). */
export async function loadSet(
  db: Db,
  organizationId: string,
  set: EvalSet,
  { name = set.name, language = "english" }: { name?: string; language?: KnowledgebaseLanguage } = {},
): Promise<string> {
  const actor = { kind: "operator" as const, organizationId };
  const { knowledgebase } = await createKnowledgebase(db, actor, { name, language });
  for (const file of set.files) {
    const markdown = readFileSync(path.join(set.dir, "corpus", file), "utf8");
    await createSource(
      db,
      actor,
      { knowledgebaseId: knowledgebase.id, name: file.replace(/\.md$/, ""), contentMarkdown: markdown },
      "api",
    );
  }
  // A few jobs at a time (a large batch makes them wait for connections and retry), until every
  // document is indexed: a retried job waits out its backoff before it can be claimed again.
  const deadline = Date.now() + 600_000;
  for (;;) {
    await drainIndexJobs(db, { batch: 4 }, 600_000);
    const waiting = await db.source.count({ where: { knowledgebaseId: knowledgebase.id, status: { not: "ready" } } });
    if (waiting === 0) break;
    if (Date.now() > deadline) throw new Error(`${set.name}: ${waiting} documents not indexed`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // Statistics as autovacuum would gather them on a live server.
  await db.$executeRawUnsafe("analyze");
  return knowledgebase.id;
}

/** Ranked document names, and passages' heading paths. */
export type Ranker = (question: string) => Promise<{ titles: string[]; headings: string[] }>;

export interface Measures {
  questions: number;
  "recall@1": number;
  "recall@5": number;
  "MRR@10": number;
  /** A top-5 passage of a right document sits under the labelled heading (sets that label headings). */
  "passage@5": number | "-";
  "p50 ms": number;
  "p95 ms": number;
  misses: string[];
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/** Asks every question; a hit is any labelled document, counted once per document (the first passage). */
export async function measure(rank: Ranker, questions: Question[]): Promise<Measures> {
  let first = 0;
  let five = 0;
  let reciprocal = 0;
  let passages = 0;
  const labelled = questions.some((q) => q.heading);
  const latencies: number[] = [];
  const misses: string[] = [];
  for (const q of questions) {
    const started = performance.now();
    const { titles, headings } = await rank(q.question);
    latencies.push(performance.now() - started);
    const unique = [...new Set(titles)];
    const rank1 = unique.slice(0, 10).findIndex((title) => q.documents.includes(title));
    if (rank1 === 0) first++;
    if (rank1 >= 0 && rank1 < 5) five++;
    else misses.push(`${q.question} [${q.documents.join(",")}] -> ${unique.slice(0, 5).join(", ") || "(nothing)"}`);
    if (rank1 >= 0) reciprocal += 1 / (rank1 + 1);
    if (
      q.heading &&
      titles.slice(0, 5).some((title, i) => q.documents.includes(title) && headings[i]!.includes(q.heading))
    )
      passages++;
  }
  const n = questions.length || 1;
  return {
    questions: questions.length,
    "recall@1": +(first / n).toFixed(3),
    "recall@5": +(five / n).toFixed(3),
    "MRR@10": +(reciprocal / n).toFixed(3),
    "passage@5": labelled ? +(passages / n).toFixed(3) : "-",
    "p50 ms": +percentile(latencies, 50).toFixed(1),
    "p95 ms": +percentile(latencies, 95).toFixed(1),
    misses,
  };
}
