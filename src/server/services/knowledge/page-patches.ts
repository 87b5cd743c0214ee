// Patches of page markdown: all-or-nothing, each anchor must occur exactly once in the text the
// previous operation left, else nothing changes.
import type { PatchOperation } from "@/schemas/knowledge/page";
import { MAX_PAGE_MARKDOWN_CHARS } from "@/schemas/limits";
import { MAX_PATCH_OPERATIONS } from "@/schemas/knowledge/page";
import { AppError, invalidRequest } from "@/server/errors";

/**
 * Where `needle` first occurs in `text` from `from` on (-1 if nowhere) and how many times,
 * overlapping occurrences included. Knuth-Morris-Pratt, linear in both lengths: anchors and pages
 * are untrusted, and repeated indexOf over a repetitive page took minutes.
 */
function occurrences(text: string, needle: string, from = 0): { first: number; count: number } {
  if (needle.length === 0) return { first: from, count: text.length - from + 1 };
  // border[i]: the length of the longest proper prefix of needle[0..i] that is also its suffix.
  const border = new Int32Array(needle.length);
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle.charCodeAt(i) !== needle.charCodeAt(k)) k = border[k - 1]!;
    if (needle.charCodeAt(i) === needle.charCodeAt(k)) k++;
    border[i] = k;
  }
  let first = -1;
  let count = 0;
  for (let i = from, k = 0; i < text.length; i++) {
    while (k > 0 && text.charCodeAt(i) !== needle.charCodeAt(k)) k = border[k - 1]!;
    if (text.charCodeAt(i) === needle.charCodeAt(k)) k++;
    if (k === needle.length) {
      if (first === -1) first = i - k + 1;
      count++;
      k = border[k - 1]!;
    }
  }
  return { first, count };
}

function quote(anchor: string): string {
  const short = anchor.length > 80 ? `${anchor.slice(0, 77)}...` : anchor;
  return JSON.stringify(short);
}

function once(
  text: string,
  anchor: string,
  index: number,
  op: string,
  field: string,
  from = 0,
  where = "the current markdown",
): number {
  const { first, count } = occurrences(text, anchor, from);
  if (count === 1) return first;
  const message =
    count === 0
      ? `Operation ${index} (${op}): ${field} ${quote(anchor)} does not appear in ${where}; it must appear exactly once. Nothing was changed.`
      : `Operation ${index} (${op}): ${field} ${quote(anchor)} appears ${count} times in ${where}; it must appear exactly once (quote more surrounding text). Nothing was changed.`;
  throw new AppError("invalid_request", message, {
    problems: [
      { path: `patch.${index}.${field}`, message: count === 0 ? "Anchor not found" : `Anchor appears ${count} times` },
    ],
    operationIndex: index,
    anchor,
  });
}

/** Applies the operations in order; throws invalid_request (naming the operation and anchor) and changes nothing on any failure. */
export function applyPatch(markdown: string, patch: readonly PatchOperation[]): string {
  if (patch.length > MAX_PATCH_OPERATIONS) {
    throw invalidRequest([{ path: "patch", message: `At most ${MAX_PATCH_OPERATIONS} operations per request` }]);
  }
  let text = markdown;
  patch.forEach((operation, index) => {
    switch (operation.op) {
      case "replace": {
        const at = once(text, operation.oldString, index, operation.op, "oldString");
        text = text.slice(0, at) + operation.newString + text.slice(at + operation.oldString.length);
        break;
      }
      case "insert_before": {
        const at = once(text, operation.anchor, index, operation.op, "anchor");
        text = text.slice(0, at) + operation.text + text.slice(at);
        break;
      }
      case "insert_after": {
        const at = once(text, operation.anchor, index, operation.op, "anchor") + operation.anchor.length;
        text = text.slice(0, at) + operation.text + text.slice(at);
        break;
      }
      case "prepend":
        text = operation.text + text;
        break;
      case "append":
        text = text + operation.text;
        break;
      case "replace_range": {
        const start = once(text, operation.from, index, operation.op, "from");
        const after = start + operation.from.length;
        const end =
          once(text, operation.to, index, operation.op, "to", after, "the markdown after `from`") + operation.to.length;
        text = text.slice(0, start) + operation.text + text.slice(end);
        break;
      }
    }
    // Checked after each operation, so a patch cannot build a page far over the maximum first.
    if (text.length > MAX_PAGE_MARKDOWN_CHARS) {
      throw invalidRequest([
        {
          path: "markdown",
          message: `Operation ${index} makes the page ${text.length} characters long; a page holds at most ${MAX_PAGE_MARKDOWN_CHARS}. Nothing was changed.`,
        },
      ]);
    }
  });
  return text;
}
