// Chunking that follows markdown: heading paths, whole table rows and list lines, overlap.
import { describe, expect, it } from "vitest";
import { chunkMarkdown } from "@/server/jobs/chunking";

describe("chunkMarkdown", () => {
  it("gives each chunk the path of headings above it, and starts a chunk at each top-level section", () => {
    const chunks = chunkMarkdown(
      "# Guide\n\nIntro text.\n\n## Install\n\n### On Debian\n\nRun apt-get install.\n\n## Usage\n\nCall it.",
    );
    expect(chunks).toEqual([
      { heading: "Guide", text: "# Guide\n\nIntro text." },
      { heading: "Guide > Install > On Debian", text: "## Install\n\n### On Debian\n\nRun apt-get install." },
      { heading: "Guide > Usage", text: "## Usage\n\nCall it." },
    ]);
  });

  it("never cuts a table row, and repeats the table's header in every chunk of it", () => {
    const rows = Array.from({ length: 40 }, (_, i) => `| option-${i} | what option ${i} does, in a sentence |`);
    const chunks = chunkMarkdown(`## Options\n\n| Name | Meaning |\n| --- | --- |\n${rows.join("\n")}`, {
      size: 400,
      overlap: 0,
    });
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(400);
      expect(chunk.heading).toBe("Options");
      for (const line of chunk.text.split("\n").filter((l) => l.startsWith("|"))) expect(line).toMatch(/^\|.*\|$/);
    }
    expect(chunks.slice(1).every((c) => c.text.includes("| Name | Meaning |"))).toBe(true);
    expect(chunks.flatMap((c) => c.text.split("\n")).filter((l) => l.startsWith("| option-"))).toHaveLength(40);
  });

  it("never cuts a list item's line", () => {
    const items = Array.from({ length: 30 }, (_, i) => `- step ${i}: do the thing number ${i} carefully`);
    const chunks = chunkMarkdown(`# Steps\n\n${items.join("\n")}`, { size: 300, overlap: 0 });
    expect(chunks.length).toBeGreaterThan(2);
    const lines = chunks.flatMap((c) => c.text.split("\n")).filter((l) => l.startsWith("- "));
    expect(lines).toEqual(items);
  });

  it("starts a chunk that continues a section with the end of the previous one", () => {
    const sentences = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} explains one more detail.`).join(" ");
    const chunks = chunkMarkdown(`## Details\n\n${sentences}\n\n${sentences}`, { size: 500, overlap: 120 });
    expect(chunks.length).toBeGreaterThan(2);
    for (let i = 1; i < chunks.length; i++) {
      const previousEnd = chunks[i - 1]!.text.slice(-60);
      expect(chunks[i]!.text.slice(0, 200)).toContain(previousEnd.slice(-30));
      expect(chunks[i]!.heading).toBe("Details");
    }
  });

  it("chunks plain text without headings", () => {
    const chunks = chunkMarkdown("just some words ".repeat(200), { size: 1000 });
    expect(chunks.every((c) => c.heading === "" && c.text.length <= 1000)).toBe(true);
    expect(chunks.length).toBeGreaterThan(2);
  });
});
