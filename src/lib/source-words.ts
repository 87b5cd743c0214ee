// A source's type, status and indexing in words for the console; the API keeps its own terms
// (src/schemas/knowledge/source.ts).
import type { SOURCE_STATUSES } from "@/schemas/knowledge/source";
import { doorWords } from "./change-words";

const TYPE_WORDS: Record<string, string> = {
  markdown: "Markdown",
  text: "Plain text",
  pdf: "PDF",
  csv: "CSV",
  html: "Web page",
  docx: "Word document",
  pptx: "PowerPoint deck",
  xlsx: "Excel workbook",
  url: "Web address, not fetched yet",
};

/** "pdf" → "PDF"; a type the console does not know is shown as the API names it. */
export function sourceTypeWords(type: string): string {
  return TYPE_WORDS[type] ?? type;
}

const STATUS_WORDS: Record<string, string> = {
  processing: "Indexing",
  ready: "Ready",
  pending_review: "Waits for review",
  failed: "Failed",
} satisfies Record<(typeof SOURCE_STATUSES)[number], string>;

/** "ready" → "Ready"; an unknown status as the API names it. */
export function sourceStatusWords(status: string): string {
  return STATUS_WORDS[status] ?? status;
}

/** How it was added: "uploaded", "through the API", "in the console". */
export function sourceAddedWords(createdVia: string): string {
  return createdVia === "upload" ? "uploaded" : doorWords(createdVia);
}

const REFRESH_WORDS: Record<string, string> = { changed: "Changed", unchanged: "Unchanged", failed: "Failed" };

/** A refresh's outcome: "Changed", "Unchanged", "Failed". */
export function refreshOutcomeWords(outcome: string): string {
  return REFRESH_WORDS[outcome] ?? outcome;
}

const JOB_WORDS: Record<string, string> = { queued: "Waiting to be indexed", running: "Being indexed" };

/** The indexing job's state: "Being indexed"; an unknown one as the API names it. */
export function indexingWords(status: string): string {
  return JOB_WORDS[status] ?? status;
}
