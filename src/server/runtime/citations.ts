// The passages an answer cites: numbered from 1 in the order they are first cited in a run, each
// with where it is in the organization's knowledge and the title a person knows it by. Only
// passages from retrieval are cited (a member's reply handed to an adviser is not a source).
import type { Citation } from "@/schemas/runs/runtime";
import type { Passage } from "./model-types";

/** How much of a passage a citation carries: enough to read it in a side panel. */
export const CITATION_TEXT_CHARS = 2000;
/** Numbers a reply could hold; a run never cites more passages than this. */
const MAX_CITATIONS = 99;

export type { Citation };

export class Citations {
  private readonly list: Citation[] = [];
  private readonly byKey = new Map<string, Citation>();

  /** The number the passage is cited by (given on its first cite); null for text that is not knowledge. */
  number(passage: Passage): number | null {
    const from = passage.from;
    if (!from) return null;
    const key = JSON.stringify([from.kind, from.id, from.heading, passage.text.slice(0, 200)]);
    const known = this.byKey.get(key);
    if (known) return known.n;
    if (this.list.length >= MAX_CITATIONS) return null;
    const citation: Citation = {
      n: this.list.length + 1,
      kind: from.kind,
      id: from.id,
      knowledgebaseId: from.knowledgebaseId,
      title: from.kind === "page" ? from.title : readableTitle(from.title),
      heading: from.heading || null,
      text: passage.text.slice(0, CITATION_TEXT_CHARS),
    };
    this.list.push(citation);
    this.byKey.set(key, citation);
    return citation.n;
  }

  /** The citations whose marker `[n]` the reply holds, by number. */
  inReply(reply: string): Citation[] {
    const used = new Set<number>();
    for (const match of reply.matchAll(/\[(\d{1,2})\]/g)) used.add(Number(match[1]));
    return this.list.filter((citation) => used.has(citation.n));
  }
}

/** A sentence with its citation marker before its closing punctuation: "… 30 days [1]." */
export function withMarker(sentence: string, n: number | null): string {
  if (n === null) return sentence;
  let end = sentence.length;
  while (end > 0 && ".!?".includes(sentence[end - 1]!)) end--;
  return `${sentence.slice(0, end)} [${n}]${sentence.slice(end)}`;
}

const FILE_EXTENSION = /\.(md|markdown|txt|text|pdf|docx?|html?|csv|json|rtf|odt|pptx?|xlsx?)$/i;

/**
 * A source's title as a person reads it: a name given as a file name or path
 * ("docs/Refund_Policy.PDF", "refund-policy.md") becomes words ("Refund policy"); any other name
 * is kept as written. Words in capitals (an acronym such as "API") stay as they are.
 */
export function readableTitle(name: string): string {
  const base = name.slice(Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\")) + 1);
  if (base === name && !FILE_EXTENSION.test(name)) return name;
  const words = base
    .replace(FILE_EXTENSION, "")
    .split(/[\s_.-]+/)
    .filter(Boolean);
  if (words.length === 0) return name;
  return words
    .map((word, index) => {
      const plain = /^\p{Lu}\p{Ll}+$/u.test(word) || /^\p{Lu}{5,}$/u.test(word) ? word.toLowerCase() : word;
      return index === 0 ? plain.charAt(0).toUpperCase() + plain.slice(1) : plain;
    })
    .join(" ");
}
