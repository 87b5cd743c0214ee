// A source's type, status and origin read in words in the console (src/lib/source-words.ts), never
// as the API's terms ("pdf", "pending_review", "via api").
import { describe, expect, it } from "vitest";
import {
  indexingWords,
  refreshOutcomeWords,
  sourceAddedWords,
  sourceStatusWords,
  sourceTypeWords,
} from "@/lib/source-words";
import { SOURCE_STATUSES } from "@/schemas/knowledge/source";

describe("source words", () => {
  it("say every status and every type the API documents in words", () => {
    expect(SOURCE_STATUSES.map(sourceStatusWords)).toEqual(["Indexing", "Ready", "Waits for review", "Failed"]);
    for (const type of ["markdown", "text", "pdf", "csv", "html", "docx", "pptx", "xlsx", "url"])
      expect(sourceTypeWords(type)).not.toBe(type);
    expect(sourceTypeWords("docx")).toBe("Word document");
  });

  it("say how it was added and how its indexing stands", () => {
    expect(sourceAddedWords("upload")).toBe("uploaded");
    expect(sourceAddedWords("api")).toBe("through the API");
    expect(sourceAddedWords("console")).toBe("in the console");
    expect(indexingWords("queued")).toBe("Waiting to be indexed");
    expect(indexingWords("running")).toBe("Being indexed");
    expect(["changed", "unchanged", "failed"].map(refreshOutcomeWords)).toEqual(["Changed", "Unchanged", "Failed"]);
  });
});
