// Plain word matching for the built-in offline model: no network, deterministic.

const STOPWORDS = new Set(
  "a an and are as at be but by can could do does for from had has have how i if in into is it its me my of on or our so that the their them then there these they this to was we what when where which who why will with would you your about please tell give show want need know".split(
    " ",
  ),
);

/** Content words, lower-cased, each reduced to its stem. */
export function terms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((word) => word.length > 1 && !STOPWORDS.has(word))
    .map(stem);
}

/**
 * A light stem, so that a question's words meet the text's in another form: "policies" and
 * "policy", "damaged", "damages" and "damage", "returns" and "returning". Each step is one
 * anchored suffix test (no backtracking) and keeps at least three letters.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is"))
    w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith("ing")) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith("ed")) w = w.slice(0, -2);
  if (w.length > 3 && w.endsWith("e")) w = w.slice(0, -1);
  // "cancelling" and "cancel", "shipped" and "ship": a doubled last consonant counts once.
  if (w.length > 3 && w.at(-1) === w.at(-2) && !"aeiouys".includes(w.at(-1)!)) w = w.slice(0, -1);
  return w;
}

/** Share of the query's terms found in the text (0..1). */
export function overlap(query: string, text: string): number {
  const wanted = new Set(terms(query));
  if (wanted.size === 0) return 0;
  const present = new Set(terms(text));
  let hits = 0;
  for (const term of wanted) if (present.has(term)) hits++;
  return hits / wanted.size;
}

/** What an answer may quote: a prose sentence, a list item, or a table row named by its columns. */
export interface AnswerUnit {
  kind: "sentence" | "item" | "row";
  text: string;
}

/** A heading and what stands under it, up to the next heading. */
export interface Section {
  heading: string;
  /** The headings above it, outermost first, joined by spaces. */
  parents: string;
  units: AnswerUnit[];
}

const HEADING_START = /^ {0,3}(#{1,6})[ \t]/;
const LIST_MARKER = /^\s*(?:[-*+]|\d{1,3}[.)])\s/;

/** The level and text of an ATX heading line ("## Install ##"), null for any other line. */
function headingOf(line: string): { level: number; text: string } | null {
  const start = HEADING_START.exec(line);
  if (!start) return null;
  let text = line.slice(start[0].length).trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === "#") end--;
  const closed = text.slice(0, end);
  if (closed !== text && (closed === "" || /\s$/.test(closed))) text = closed.trim();
  return { level: start[1]!.length, text };
}

/** A table's divider row ("|---|:---:|"). */
function isDivider(line: string): boolean {
  return line.includes("-") && /^[\s:|-]+$/.test(line);
}

/** Prose as an answer quotes it: links keep their words, emphasis and code stay for the chat to render. */
function proseMarkdown(text: string): string {
  return text
    .replace(/!?\[([^[\]]*)\]\([^()]*\)/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

/** Markdown's marks taken off, for headings and table cells: links keep their words. */
function plainMarkdown(text: string): string {
  return proseMarkdown(text.replace(/(\*\*|__|`)/g, ""));
}

function cellsOf(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((cell) => plainMarkdown(cell));
}

/**
 * A passage's text as sections: each heading with the sentences, list items and table rows under
 * it, headings never glued into the text after them. `heading` is the path in force where the
 * passage starts (a chunk that continues a section), " > " between its parts.
 */
export function sections(text: string, heading = ""): Section[] {
  const outer = heading.split(" > ").filter(Boolean);
  let current: Section = { heading: outer.at(-1) ?? "", parents: outer.slice(0, -1).join(" "), units: [] };
  const found = [current];
  const stack: { level: number; text: string }[] = [];
  let paragraph: string[] = [];
  let header: string[] | null = null;
  let fenced = false;

  const endParagraph = () => {
    const prose = proseMarkdown(paragraph.join(" "));
    paragraph = [];
    for (const sentence of prose.split(/(?<=[.!?])\s+(?=\S)/))
      if (sentence) current.units.push({ kind: "sentence", text: sentence });
  };
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      endParagraph();
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const headingLine = headingOf(line);
    const listItem = LIST_MARKER.exec(line);
    const trimmed = line.trim();
    if (!trimmed.startsWith("|")) header = null;
    if (headingLine) {
      endParagraph();
      const { level } = headingLine;
      while (stack.length && stack.at(-1)!.level >= level) stack.pop();
      const parents = stack.length ? stack.map((entry) => entry.text).join(" ") : outer.slice(0, -1).join(" ");
      const title = plainMarkdown(headingLine.text);
      stack.push({ level, text: title });
      current = { heading: title, parents, units: [] };
      found.push(current);
    } else if (trimmed.startsWith("|")) {
      endParagraph();
      if (isDivider(trimmed)) continue;
      const cells = cellsOf(trimmed);
      if (!header) header = cells;
      else if (cells.join("|") !== header.join("|")) {
        const named = cells.flatMap((cell, i) => (cell ? [header![i] ? `${header![i]}: ${cell}` : cell] : []));
        if (named.length) current.units.push({ kind: "row", text: named.join(", ") });
      }
    } else if (listItem) {
      endParagraph();
      const item = proseMarkdown(line.slice(listItem[0].length));
      if (item) current.units.push({ kind: "item", text: item });
    } else if (!trimmed) endParagraph();
    else if (/^\s/.test(line) && paragraph.length === 0 && current.units.at(-1)?.kind === "item") {
      // An indented line under a list item continues it.
      const last = current.units.at(-1)!;
      last.text = `${last.text} ${proseMarkdown(trimmed)}`;
    } else paragraph.push(trimmed);
  }
  endParagraph();
  return found.filter((section) => section.units.length > 0);
}
