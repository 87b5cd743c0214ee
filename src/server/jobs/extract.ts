// Text extraction: every source ends up as markdown. PDF text with unpdf (pdf.js), CSV with
// papaparse to a markdown table, HTML through Readability (boilerplate removed) and turndown,
// DOCX, PPTX and XLSX in office.ts. The libraries are imported lazily: only indexing needs them.
// Everything but short inline text (and every fetched URL) is extracted in a child process with
// its own memory and time limits (extraction-process.ts); this module is the work that process does.

import { storableText } from "@/schemas/text";
import { docxToMarkdown, isZip, officeTypeOf, pptxToMarkdown, xlsxToMarkdown, type OfficeType } from "./office";
import { ExtractionFailed, htmlFragmentToMarkdown, markdownTable } from "./to-markdown";
import { groupedDigits } from "@/lib/digits";

export { ExtractionFailed };

export type SourceType = "markdown" | "text" | "pdf" | "csv" | "html" | OfficeType;

const OFFICE_MIME: Record<string, OfficeType> = {
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
};

const OFFICE_TYPES = new Set<string>(["docx", "pptx", "xlsx"]);

/** The type the bytes themselves show: DOCX, PPTX or XLSX by their zip entries; null otherwise. */
export function typeOfBytes(bytes: Uint8Array): OfficeType | null {
  return officeTypeOf(bytes);
}

/**
 * The type of an uploaded file; null when unsupported. A zip is what its entries say, whatever
 * its name; a file named or labelled as an office file that is not one is refused. Otherwise by
 * extension, then by content type. Without the bytes, by name and content type alone.
 */
export function typeOfFile(name: string, contentType = "", bytes?: Uint8Array): SourceType | null {
  if (bytes && isZip(bytes)) return officeTypeOf(bytes);
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  const type = byExtension(extension) ?? typeOfContent(contentType);
  if (type && OFFICE_TYPES.has(type) && bytes) return null;
  return type;
}

function byExtension(extension: string | undefined): SourceType | null {
  switch (extension) {
    case "pdf":
      return "pdf";
    case "csv":
      return "csv";
    case "txt":
    case "text":
      return "text";
    case "md":
    case "markdown":
      return "markdown";
    case "html":
    case "htm":
      return "html";
    case "docx":
    case "pptx":
    case "xlsx":
      return extension;
    default:
      return null;
  }
}

/** The type of a fetched document by its content type. */
export function typeOfContent(contentType: string): SourceType | null {
  const mime = contentType.split(";")[0]!.trim().toLowerCase();
  if (mime === "application/pdf") return "pdf";
  if (mime === "text/csv") return "csv";
  if (mime === "text/markdown" || mime === "text/x-markdown") return "markdown";
  if (mime === "text/plain") return "text";
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  return OFFICE_MIME[mime] ?? null;
}

export interface ExtractOptions {
  /** Extraction stops, and the document fails, once its text passes this many characters. */
  maxChars?: number;
}

/** The default cap on a document's extracted text. */
export const MAX_EXTRACTED_CHARS = 5_000_000;

const LABELS: Record<SourceType, string> = {
  pdf: "The PDF's text",
  csv: "The CSV's text",
  html: "The page's text",
  docx: "The DOCX's text",
  pptx: "The PPTX's text",
  xlsx: "The spreadsheet's text",
  markdown: "The document's text",
  text: "The document's text",
};

function tooLong(type: SourceType, maxChars: number): ExtractionFailed {
  return new ExtractionFailed(`${LABELS[type]} exceeds the ${groupedDigits(maxChars)}-character limit.`);
}

function decodeText(bytes: Uint8Array): string {
  return new TextDecoder("utf-8")
    .decode(bytes)
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n");
}

export async function csvToMarkdown(text: string): Promise<string> {
  const { default: Papa } = await import("papaparse");
  const parsed = Papa.parse<string[]>(text.trim(), { skipEmptyLines: true });
  const rows = parsed.data.filter((row) => row.some((value) => String(value).trim() !== ""));
  if (rows.length === 0) throw new ExtractionFailed("The CSV file has no rows.");
  return markdownTable(rows);
}

export async function htmlToMarkdown(html: string, url?: string): Promise<{ title: string; markdown: string }> {
  const [{ parseHTML }, { Readability }] = await Promise.all([import("linkedom"), import("@mozilla/readability")]);
  const { document } = parseHTML(html);
  const fallbackTitle = document.querySelector("title")?.textContent?.trim() ?? "";
  let content: string | null = null;
  let title = fallbackTitle;
  try {
    const article = new Readability(document as unknown as Document, { charThreshold: 0 }).parse();
    if (article?.content) {
      content = article.content;
      title = article.title?.trim() || fallbackTitle;
    }
  } catch {
    content = null;
  }
  if (!content) {
    const again = parseHTML(html).document;
    for (const tag of ["script", "style", "nav", "header", "footer", "aside", "noscript", "form"]) {
      for (const element of [...again.querySelectorAll(tag)]) element.remove();
    }
    content = again.body?.innerHTML ?? html;
  }
  const markdown = await htmlFragmentToMarkdown(content);
  void url;
  return { title, markdown };
}

/** Page by page, so a document over the cap stops at the page that passes it. */
export async function pdfToText(bytes: Uint8Array, maxChars: number = MAX_EXTRACTED_CHARS): Promise<string> {
  const { getDocumentProxy } = await import("unpdf");
  const pages: string[] = [];
  let length = 0;
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    for (let number = 1; number <= pdf.numPages; number++) {
      const content = await (await pdf.getPage(number)).getTextContent();
      const page = content.items
        .map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : ""))
        .join("")
        .trim();
      length += page.length;
      if (length > maxChars) throw tooLong("pdf", maxChars);
      if (page) pages.push(page);
    }
  } catch (error) {
    if (error instanceof ExtractionFailed) throw error;
    throw new ExtractionFailed(
      `The PDF could not be read (${(error as Error).message}); check that the file is a valid, unencrypted PDF.`,
    );
  }
  const text = pages.join("\n\n");
  if (text.trim() === "") {
    throw new ExtractionFailed(
      "The PDF has no extractable text (it is probably scanned images). Run it through OCR or upload a text version, then retry.",
    );
  }
  return text;
}

/** The document as markdown text, without characters PostgreSQL cannot store. */
export async function extractText(type: SourceType, bytes: Uint8Array, options: ExtractOptions = {}): Promise<string> {
  const maxChars = options.maxChars ?? MAX_EXTRACTED_CHARS;
  let text: string;
  switch (type) {
    case "markdown":
    case "text":
      text = decodeText(bytes);
      break;
    case "csv":
      text = await csvToMarkdown(decodeText(bytes));
      break;
    case "html":
      text = (await htmlToMarkdown(decodeText(bytes))).markdown;
      break;
    case "pdf":
      text = await pdfToText(bytes, maxChars);
      break;
    case "docx":
      text = await docxToMarkdown(bytes, maxChars);
      break;
    case "pptx":
      text = await pptxToMarkdown(bytes, maxChars);
      break;
    case "xlsx":
      text = await xlsxToMarkdown(bytes, maxChars);
      break;
  }
  text = storableText(text);
  if (text.length > maxChars) throw tooLong(type, maxChars);
  if (text.trim() === "") throw new ExtractionFailed("The document is empty: there is no text to index.");
  return text;
}

/**
 * Splits text into chunks of about `size` characters at paragraph, then line, then word breaks.
 * About 1,000 characters keeps a chunk row (text and tsvector) under PostgreSQL's TOAST
 * threshold, so ranking reads no out-of-line data, and makes snippets precise.
 */
export function chunkText(text: string, size = 1000): string[] {
  const chunks: string[] = [];
  let rest = text.trim();
  while (rest.length > size) {
    const window = rest.slice(0, size);
    let cut = window.lastIndexOf("\n\n");
    if (cut < size / 2) cut = window.lastIndexOf("\n");
    if (cut < size / 2) cut = window.lastIndexOf(" ");
    if (cut < size / 2) cut = size;
    chunks.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) chunks.push(rest);
  return chunks.filter(Boolean);
}
