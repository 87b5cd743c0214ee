// Synonyms of a question's words, from outside the knowledgebase (issue 34): the compact English
// thesaurus derived from WordNet (scripts/build-thesaurus.ts → english-thesaurus.json) and a
// hand-written table of how people ask about software (software-vocabulary.ts). The
// ranking statement (lexical-sql.ts) stems them in the knowledgebase's language, uses them
// only for english knowledgebases, and credits a passage that holds a synonym but not the word
// itself a share of the word's weight: never as much as the word.
// It also names the words of how a question is asked ("want", "need", "way"), which weigh little.
//
// The file is one sorted string of lines "lemma<TAB>sense's words<TAB>…", read once on first use
// and searched by bisection over an index of line starts: about 1.5 MB of text and 200 KB of
// index, no map of 48,000 entries.
import EVERYDAY_WORDS from "./everyday-words.json";
import { SOFTWARE_VOCABULARY } from "./software-vocabulary";

/** How a question's words are widened; the defaults are the ones the evaluation chose. */
export interface VocabularyOptions {
  /** Senses of a word whose synonyms are taken, most frequent first (0: none, expansion off). */
  senses: number;
  /** Synonyms taken per question word. */
  perWord: number;
  /** A synonym's credit as a share of its word's (and never more than its own rarity allows). */
  weight: number;
  /** Widen only words the knowledgebase never uses. */
  onlyAbsent: boolean;
  /** Which sources: the hand-written software table (software-vocabulary.ts), WordNet, or both (the table first). */
  sources: "wordnet" | "table" | "both";
  /** Table entries left out: the evaluation measures the table without those an earlier report had named. */
  withoutEntries?: ReadonlySet<string>;
  /**
   * A question-intent word's share of its rarity when the question has other terms (1: weighed
   * as any word; english only): QUESTION_INTENT_WORDS.
   */
  intentWeight: number;
  /**
   * Everyday words of speech weigh less (english only, when the question has other terms): a word
   * whose Zipf frequency in speech (everyday-words.json) is `from` or more weighs a share of its
   * rarity falling linearly to `floor` at `to`. Documentation rarely says "every", "day" or
   * "keep", so its own rarity would make them a question's weightiest words. Null: off.
   */
  everyday: { from: number; to: number; floor: number } | null;
}

export const VOCABULARY_DEFAULTS: VocabularyOptions = {
  senses: 1,
  perWord: 5,
  weight: 0.7,
  onlyAbsent: false,
  sources: "both",
  intentWeight: 0.3,
  everyday: { from: 5, to: 6, floor: 0.3 },
};

/**
 * Words of how people phrase a request rather than what it is about ("I want to…", "is there a
 * way to…", "let me…", "I need to…"), written from general knowledge of questions, not from the
 * evaluation's ("how" is already a stop word). PostgreSQL's english stop list keeps them, and in
 * a corpus that rarely uses them they would weigh as much as the rarest word of the question: in
 * an english knowledgebase they weigh `intentWeight` of their rarity when the question has other
 * terms, and bring no synonyms (lexical-sql.ts).
 */
export const QUESTION_INTENT_WORDS = [
  "want",
  "wanted",
  "need",
  "needed",
  "way",
  "ways",
  "make",
  "let",
  "get",
  "getting",
  "use",
  "using",
  "able",
  "possible",
  "try",
  "trying",
  "tried",
  "like",
  "know",
  "help",
  "please",
  "would",
  "could",
  "thing",
  "something",
  "anything",
  "somehow",
  "instead",
  "actually",
  "really",
];

const INTENT = new Set(QUESTION_INTENT_WORDS);

/**
 * The words that weigh less than their rarity, and their share: every intent word (the statement
 * stems them, so "wants" is "want"), then the question's everyday words.
 */
export function lightWordsOf(question: string, options: VocabularyOptions): { words: string[]; weights: number[] } {
  const shares = new Map<string, number>();
  if (options.intentWeight < 1) for (const word of QUESTION_INTENT_WORDS) shares.set(word, options.intentWeight);
  const everyday = options.everyday;
  const zipf = EVERYDAY_WORDS as Record<string, number>;
  if (everyday)
    for (const word of new Set(question.toLowerCase().match(WORDS) ?? [])) {
      const frequency = Object.hasOwn(zipf, word) ? zipf[word]! : 0;
      if (frequency < everyday.from) continue;
      const share = 1 - ((frequency - everyday.from) / (everyday.to - everyday.from)) * (1 - everyday.floor);
      shares.set(word, Math.min(shares.get(word) ?? 1, Math.max(everyday.floor, share)));
    }
  return { words: [...shares.keys()], weights: [...shares.values()] };
}

/** At most this many synonyms are added to one question, whatever its length. */
export const MAX_SYNONYM_TERMS = 24;

/** A question word and one of its synonyms (both as written, lowercase). */
export interface Synonyms {
  words: string[];
  synonyms: string[];
}

interface Thesaurus {
  text: string;
  lineStarts: Uint32Array;
}

let loading: Promise<Thesaurus> | null = null;

function thesaurus(): Promise<Thesaurus> {
  loading ??= import("./english-thesaurus.json").then(({ default: { lines: text } }) => {
    const starts = [0];
    for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
    return { text, lineStarts: Uint32Array.from(starts) };
  });
  return loading;
}

/** The lemma's sense groups (each a list of words), or null. */
function lookUp({ text, lineStarts }: Thesaurus, lemma: string): string[][] | null {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const start = lineStarts[middle]!;
    const tab = text.indexOf("\t", start);
    const key = text.slice(start, tab);
    if (key === lemma) {
      const end = middle + 1 < lineStarts.length ? lineStarts[middle + 1]! - 1 : text.length;
      return text
        .slice(tab + 1, end)
        .split("\t")
        .map((group) => group.split(" "));
    }
    if (key < lemma) low = middle + 1;
    else high = middle - 1;
  }
  return null;
}

/**
 * WordNet's detachment rules (its morphy): an inflected word's base forms to try, after the word
 * itself ("folders" → "folder", "crashed" → "crash", "freezing" → "freeze").
 */
const DETACHMENTS: [string, string][] = [
  ["ies", "y"],
  ["ses", "s"],
  ["xes", "x"],
  ["zes", "z"],
  ["ches", "ch"],
  ["shes", "sh"],
  ["men", "man"],
  ["es", "e"],
  ["es", ""],
  ["s", ""],
  ["ed", "e"],
  ["ed", ""],
  ["ing", "e"],
  ["ing", ""],
  ["er", ""],
  ["est", ""],
];

/** The first of the word and its base forms that `find` knows, and what it says of it. */
function baseForm<T>(word: string, find: (lemma: string) => T | null | undefined): T | null {
  const direct = find(word);
  if (direct) return direct;
  for (const [suffix, replacement] of DETACHMENTS) {
    if (word.length - suffix.length < 3 || !word.endsWith(suffix)) continue;
    const found = find(word.slice(0, -suffix.length) + replacement);
    if (found) return found;
  }
  return null;
}

/** Halves of a compound shorter than this are mostly not words of their own ("ab" + "out"). */
const MIN_COMPOUND_PART = 3;

/**
 * A compound written as one word and its two words as a phrase ("filesystem" → "file system",
 * "hostname" → "host name"): the first split where both halves are thesaurus words, or null.
 * Documentation writes many of them either way; the phrase matches only the words side by side.
 */
function compoundParts(book: Thesaurus, word: string): string | null {
  for (let at = MIN_COMPOUND_PART; at <= word.length - MIN_COMPOUND_PART; at++) {
    const [head, tail] = [word.slice(0, at), word.slice(at)];
    if (lookUp(book, head) && lookUp(book, tail)) return `${head} ${tail}`;
  }
  return null;
}

/** Letters only, so that a word is a thesaurus key; linear in the question's length. */
const WORDS = /\p{L}+/gu;

/** Parts shorter than this ("e.g", "v1.2") are not words a document would be named by. */
const MIN_NAME_PART = 2;

/**
 * A name written with dots or slashes ("tar.gz", "/etc/fstab", "node.js") and its words: the
 * text search keeps such a name whole, as one term (it splits only hyphenated words), so a
 * question's "tar.gz" would never meet a document about tar. Each word stands in for the name.
 */
function dottedNames(question: string): Synonyms {
  const result: Synonyms = { words: [], synonyms: [] };
  for (const token of question.toLowerCase().split(/\s/)) {
    let end = token.length;
    while (end > 0 && SENTENCE_PUNCTUATION.has(token[end - 1]!)) end--;
    const name = token.slice(0, end);
    if (!name.includes(".") && !name.includes("/")) continue;
    const parts = [...new Set(name.match(WORDS) ?? [])].filter((part) => part.length >= MIN_NAME_PART);
    // One word is worth adding only for a path ("/tmp"); the search splits ".bashrc" itself.
    if (parts.length < 2 && !(parts.length === 1 && name.startsWith("/"))) continue;
    for (const part of parts) {
      result.words.push(name);
      result.synonyms.push(part);
    }
  }
  return result;
}

/** Punctuation that ends a sentence or clause, not the name it follows ("see /etc/fstab."). */
const SENTENCE_PUNCTUATION = new Set(".,;:!?)\"'");

/**
 * A word's synonyms before the question's own words are taken out: its compound's parts, the
 * table's, then WordNet's senses. With the default options they are kept per process (the
 * thesaurus and the table never change while it runs): the bisections cost tens of µs a question.
 */
const candidatesKept = new Map<string, string[]>();
const CANDIDATES_KEPT = 10_000;

function candidatesOf(book: Thesaurus | null, word: string, options: VocabularyOptions): string[] {
  const keep = options === VOCABULARY_DEFAULTS;
  const kept = keep ? candidatesKept.get(word) : undefined;
  if (kept) return kept;
  const said =
    options.sources === "wordnet"
      ? []
      : (baseForm(word, (lemma) => (options.withoutEntries?.has(lemma) ? null : SOFTWARE_VOCABULARY.get(lemma))) ?? []);
  const groups = book ? (baseForm(word, (lemma) => lookUp(book, lemma)) ?? []) : [];
  const parts = book ? compoundParts(book, word) : null;
  const candidates = [...new Set([...(parts ? [parts] : []), ...said, ...groups.slice(0, options.senses).flat()])];
  if (keep) {
    if (candidatesKept.size >= CANDIDATES_KEPT) candidatesKept.clear();
    candidatesKept.set(word, candidates);
  }
  return candidates;
}

/** The synonyms a question brings, at most MAX_SYNONYM_TERMS, its earlier words first. */
export async function synonymsOf(question: string, options: VocabularyOptions): Promise<Synonyms> {
  const result: Synonyms = { words: [], synonyms: [] };
  if (options.senses <= 0 || options.perWord <= 0) return result;
  const names = dottedNames(question);
  result.words.push(...names.words.slice(0, MAX_SYNONYM_TERMS));
  result.synonyms.push(...names.synonyms.slice(0, MAX_SYNONYM_TERMS));
  const book = options.sources === "table" ? null : await thesaurus();
  const words = new Set(question.toLowerCase().match(WORDS) ?? []);
  for (const word of words) {
    // An intent word that weighs little is not widened: its synonyms would take others' places.
    if (options.intentWeight < 1 && INTENT.has(word)) continue;
    const taken = candidatesOf(book, word, options)
      .filter((synonym) => !words.has(synonym))
      .slice(0, options.perWord);
    for (const synonym of taken) {
      if (result.synonyms.length >= MAX_SYNONYM_TERMS) return result;
      result.words.push(word);
      result.synonyms.push(synonym);
    }
  }
  for (const [word, joined] of joinedCompounds(question)) {
    if (result.synonyms.length >= MAX_SYNONYM_TERMS) break;
    if (words.has(joined)) continue;
    result.words.push(word);
    result.synonyms.push(joined);
  }
  return result;
}

/**
 * A compound the question writes as two words and a document may write as one ("time zone" →
 * "timezone", "file name" → "filename"): each pair of adjacent words of MIN_COMPOUND_PART letters
 * or more, neither an intent word, joined, standing for the second (the compound's head). The
 * other way round is compoundParts'. A joined word no document holds matches nothing.
 */
function joinedCompounds(question: string): [string, string][] {
  const sequence = question.toLowerCase().match(WORDS) ?? [];
  const pairs: [string, string][] = [];
  for (let i = 1; i < sequence.length; i++) {
    const [first, second] = [sequence[i - 1]!, sequence[i]!];
    if (first.length < MIN_COMPOUND_PART || second.length < MIN_COMPOUND_PART) continue;
    if (INTENT.has(first) || INTENT.has(second)) continue;
    pairs.push([second, first + second]);
  }
  return pairs;
}
