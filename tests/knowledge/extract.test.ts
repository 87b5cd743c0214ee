// Extraction of PDF, CSV, TXT, MD and HTML on small fixtures made here.
import { PDFDocument, StandardFonts } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { chunkText, ExtractionFailed, extractText, htmlToMarkdown, typeOfFile } from "@/server/jobs/extract";

export async function makePdf(lines: string[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([400, 400]);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  lines.forEach((line, i) => page.drawText(line, { x: 20, y: 360 - i * 20, size: 12, font }));
  return pdf.save();
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe("extraction", () => {
  it("reads the text of a PDF", async () => {
    const text = await extractText("pdf", await makePdf(["Quarterly revenue grew", "Second line here"]));
    expect(text).toContain("Quarterly revenue grew");
    expect(text).toContain("Second line here");
  });

  it("says so when a PDF has no extractable text", async () => {
    const pdf = await PDFDocument.create();
    pdf.addPage([100, 100]);
    await expect(extractText("pdf", await pdf.save())).rejects.toThrow(/no extractable text/);
    await expect(extractText("pdf", bytes("not a pdf"))).rejects.toBeInstanceOf(ExtractionFailed);
  });

  it("turns a CSV into a markdown table", async () => {
    const text = await extractText("csv", bytes('name,price,note\r\nWidget,3.50,"a, b"\nGadget,10,"pipe | inside"\n'));
    expect(text).toBe(
      "| name | price | note |\n| --- | --- | --- |\n| Widget | 3.50 | a, b |\n| Gadget | 10 | pipe \\| inside |",
    );
  });

  it("keeps TXT and MD as they are (BOM and CRLF normalised)", async () => {
    expect(await extractText("text", bytes("\uFEFFline one\r\nline two"))).toBe("line one\nline two");
    expect(await extractText("markdown", bytes("# Heading\n\n- item"))).toBe("# Heading\n\n- item");
    await expect(extractText("text", bytes("   "))).rejects.toThrow(/empty/);
  });

  it("turns HTML into markdown without the boilerplate", async () => {
    const html = `<html><head><title>Guide</title><script>var tracking = 1;</script></head><body>
      <nav><a href="/">Home</a> <a href="/about">About us</a></nav>
      <header>Site header banner</header>
      <article><h1>Installing the widget</h1>
        <p>First, unpack the widget carefully and place it on a flat surface. This paragraph is long enough to be content.</p>
        <h2>Wiring</h2><p>Connect the <strong>red</strong> wire to the terminal marked positive, then the black wire to negative.</p>
        <ul><li>Step one</li><li>Step two</li></ul>
      </article>
      <footer>Copyright footer text</footer></body></html>`;
    const { markdown } = await htmlToMarkdown(html);
    expect(markdown).toContain("## Wiring");
    expect(markdown).toContain("**red**");
    expect(markdown).toMatch(/-\s+Step one/);
    expect(markdown).not.toContain("tracking");
    expect(markdown).not.toContain("About us");
    expect(markdown).not.toContain("Copyright footer");
  });

  it("knows file types by extension and content type", () => {
    expect(typeOfFile("a.PDF")).toBe("pdf");
    expect(typeOfFile("a.csv")).toBe("csv");
    expect(typeOfFile("a.txt")).toBe("text");
    expect(typeOfFile("a.md")).toBe("markdown");
    expect(typeOfFile("blob", "text/plain")).toBe("text");
    expect(typeOfFile("a.exe", "application/octet-stream")).toBeNull();
    expect(typeOfFile("page.html", "text/html")).toBe("html");
  });

  it("chunks long text at paragraph breaks", () => {
    const text = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} ${"word ".repeat(40)}`).join("\n\n");
    const chunks = chunkText(text, 1000);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(1000);
    expect(chunks.join(" ").replace(/\s+/g, " ").trim()).toBe(text.replace(/\s+/g, " ").trim());
  });
});
