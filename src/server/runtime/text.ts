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

export function sentences(text: string): string[] {
  return text
    .replace(/^#+\s*/gm, "")
    .split(/(?<=[.!?])\s+|\n{2,}|\n(?=[-*]\s)/)
    .map((sentence) => sentence.replace(/\s+/g, " ").trim())
    .filter((sentence) => sentence.length > 0);
}
