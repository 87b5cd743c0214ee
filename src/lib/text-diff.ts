// The one text diff of the console (reviews, page revisions, version-vs-draft), over the
// `diff` package: by line for structure, by word for prose a reviewer reads.
import { diffArrays, diffWordsWithSpace } from "diff";

export interface DiffPart {
  op: "same" | "add" | "remove";
  text: string;
}

/** One part per line. */
export function lineDiff(before: string, after: string): DiffPart[] {
  return diffArrays(before.split("\n"), after.split("\n")).flatMap((change) =>
    change.value.map((text) => ({ op: change.added ? "add" : change.removed ? "remove" : "same", text }) as const),
  );
}

/** Runs of words and the whitespace between them, removed runs before the added ones that replace them. */
export function wordDiff(before: string, after: string): DiffPart[] {
  return diffWordsWithSpace(before, after).map((change) => ({
    op: change.added ? "add" : change.removed ? "remove" : "same",
    text: change.value,
  }));
}

export function hasChanges(parts: DiffPart[]): boolean {
  return parts.some((part) => part.op !== "same");
}
