// Office documents to markdown, in the extraction child (extraction-child.ts) under its bounds:
// DOCX through mammoth (Word's heading styles become headings) and turndown, XLSX through exceljs
// (each sheet a section under its name), PPTX from its slides' XML read with jszip (each slide a
// section under its title). Tables become markdown tables. What a file is comes from its zip
// entries, read from the zip's central directory without inflating anything.
import { ExtractionFailed, htmlFragmentToMarkdown, markdownTable } from "./to-markdown";
import { groupedDigits } from "@/lib/digits";

export type OfficeType = "docx" | "pptx" | "xlsx";

/** The entry that makes a zip an office file of each kind. */
const MAIN_ENTRY: Record<string, OfficeType> = {
  "word/document.xml": "docx",
  "ppt/presentation.xml": "pptx",
  "xl/workbook.xml": "xlsx",
};

/**
 * What the entries of a zip say they inflate to, in all, at most: past it a file fails before
 * anything is inflated (the child's memory watch stops one whose sizes lie).
 */
export const MAX_INFLATED_BYTES = 200 * 1024 * 1024;

const NAMES: Record<OfficeType, string> = { docx: "DOCX", pptx: "PPTX", xlsx: "XLSX" };

interface ZipDirectory {
  names: string[];
  inflatedBytes: number;
}

/** The central directory of a zip (entry names and declared sizes); null when the bytes are no zip. */
function zipDirectory(bytes: Uint8Array): ZipDirectory | null {
  if (bytes.byteLength < 22 || bytes[0] !== 0x50 || bytes[1] !== 0x4b || bytes[2] !== 3 || bytes[3] !== 4) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-directory record is in the last 22 bytes, or before a comment of up to 64 KB.
  const lowest = Math.max(0, bytes.byteLength - 22 - 0xffff);
  for (let at = bytes.byteLength - 22; at >= lowest; at--) {
    if (view.getUint32(at, true) !== 0x06054b50) continue;
    const count = view.getUint16(at + 10, true);
    let offset = view.getUint32(at + 16, true);
    const names: string[] = [];
    let inflatedBytes = 0;
    const decoder = new TextDecoder();
    for (let i = 0; i < count; i++) {
      if (offset + 46 > bytes.byteLength || view.getUint32(offset, true) !== 0x02014b50) return null;
      const nameLength = view.getUint16(offset + 28, true);
      // 0xFFFFFFFF is a Zip64 size: more than 4 GB, or so it claims.
      inflatedBytes += view.getUint32(offset + 24, true);
      names.push(decoder.decode(bytes.subarray(offset + 46, offset + 46 + nameLength)));
      offset += 46 + nameLength + view.getUint16(offset + 30, true) + view.getUint16(offset + 32, true);
    }
    return { names, inflatedBytes };
  }
  return null;
}

/** True when the bytes start as a zip does. */
export function isZip(bytes: Uint8Array): boolean {
  return bytes.byteLength >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 3 && bytes[3] === 4;
}

/** DOCX, PPTX or XLSX by the zip's entries; null for anything else (another zip, not a zip). */
export function officeTypeOf(bytes: Uint8Array): OfficeType | null {
  const directory = zipDirectory(bytes);
  if (!directory) return null;
  for (const name of directory.names) if (MAIN_ENTRY[name]) return MAIN_ENTRY[name];
  return null;
}

function unreadable(type: OfficeType, error: unknown): ExtractionFailed {
  if (error instanceof ExtractionFailed) return error;
  const reason = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 200);
  return new ExtractionFailed(
    `The ${NAMES[type]} could not be read (${reason}); check that the file is a valid, unencrypted ${NAMES[type]} file.`,
  );
}

/** Refuses, before inflating, a file that is not the office type it is taken for, or would inflate past the bound. */
function checkZip(type: OfficeType, bytes: Uint8Array): void {
  const directory = zipDirectory(bytes);
  const kind = { docx: "Word document", pptx: "PowerPoint presentation", xlsx: "Excel workbook" }[type];
  if (!directory || !directory.names.some((name) => MAIN_ENTRY[name] === type))
    throw new ExtractionFailed(`The ${NAMES[type]} could not be read: it is not a ${kind}.`);
  if (directory.inflatedBytes > MAX_INFLATED_BYTES)
    throw new ExtractionFailed(
      `The ${NAMES[type]} would inflate to more than ${MAX_INFLATED_BYTES / 1024 / 1024} MB; the document is too large, or built to inflate far beyond its size.`,
    );
}

/** Text over the cap: the document fails, naming the cap. */
function overCap(what: string, maxChars: number): ExtractionFailed {
  return new ExtractionFailed(`${what} exceeds the ${groupedDigits(maxChars)}-character limit.`);
}

export async function docxToMarkdown(bytes: Uint8Array, maxChars: number): Promise<string> {
  checkZip("docx", bytes);
  let html: string;
  try {
    const mammoth = await import("mammoth");
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes) })).value;
  } catch (error) {
    throw unreadable("docx", error);
  }
  // HTML's markup takes more room than the markdown made of it: twice the cap is no document we keep.
  if (html.length > maxChars * 2) throw overCap("The DOCX's text", maxChars);
  return htmlFragmentToMarkdown(html);
}

export async function xlsxToMarkdown(bytes: Uint8Array, maxChars: number): Promise<string> {
  checkZip("xlsx", bytes);
  const { default: ExcelJS } = await import("exceljs");
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  } catch (error) {
    throw unreadable("xlsx", error);
  }
  const sections: string[] = [];
  let length = 0;
  for (const sheet of workbook.worksheets) {
    const rows: string[][] = [];
    sheet.eachRow({ includeEmpty: false }, (row) => {
      const values: string[] = [];
      row.eachCell({ includeEmpty: true }, (cell, column) => {
        values[column - 1] = cell.text;
      });
      const cells = Array.from(values, (value) => value ?? "");
      length += cells.reduce((sum, value) => sum + value.length + 3, 0);
      if (length > maxChars) throw overCap("The spreadsheet's text", maxChars);
      rows.push(cells);
    });
    if (rows.length > 0) sections.push(`# ${sheet.name}\n\n${markdownTable(rows)}`);
  }
  return sections.join("\n\n");
}

const XML_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|amp|lt|gt|quot|apos);/g, (_, entity: string) => {
    if (entity[0] !== "#") return XML_ENTITIES[entity]!;
    const code = entity[1] === "x" ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : "";
  });
}

/**
 * One slide's XML as its title and markdown blocks: the text of each shape (a title placeholder's
 * becomes the title), and each table as a markdown table. A single pass over the tags with
 * indexOf, linear in the XML's length whatever it holds.
 */
export function slideToMarkdown(xml: string): { title: string; blocks: string[] } {
  let title = "";
  const blocks: string[] = [];
  let shape: { title: boolean; paragraphs: string[] } | null = null;
  let table: string[][] | null = null;
  let row: string[] | null = null;
  let cell: string[] | null = null;
  let paragraph: string | null = null;
  let inText = false;
  for (let at = 0; at < xml.length;) {
    const open = xml.indexOf("<", at);
    if (open < 0) break;
    if (inText && paragraph !== null && open > at) paragraph += decodeXml(xml.slice(at, open));
    const close = xml.indexOf(">", open);
    if (close < 0) break;
    const tag = xml.slice(open + 1, close);
    at = close + 1;
    const closing = tag.startsWith("/");
    const selfClosing = tag.endsWith("/");
    const name = (closing ? tag.slice(1) : tag).split(/[\s/]/, 1)[0];
    if (!closing) {
      if (name === "p:sp") shape = { title: false, paragraphs: [] };
      else if (name === "p:ph" && shape && /\btype="(?:title|ctrTitle)"/.test(tag)) shape.title = true;
      else if (name === "a:tbl") table = [];
      else if (name === "a:tr" && table) row = [];
      else if (name === "a:tc" && row) cell = [];
      else if (name === "a:p" && !selfClosing) paragraph = "";
      else if (name === "a:t" && !selfClosing) inText = true;
      else if ((name === "a:br" || name === "a:tab") && paragraph !== null) paragraph += " ";
      continue;
    }
    if (name === "a:t") inText = false;
    else if (name === "a:p" && paragraph !== null) {
      const text = paragraph.replace(/\s+/g, " ").trim();
      if (text) (cell ?? shape?.paragraphs ?? blocks).push(text);
      paragraph = null;
    } else if (name === "a:tc" && row && cell) {
      row.push(cell.join(" "));
      cell = null;
    } else if (name === "a:tr" && table && row) {
      table.push(row);
      row = null;
    } else if (name === "a:tbl" && table) {
      if (table.length > 0) blocks.push(markdownTable(table));
      table = null;
    } else if (name === "p:sp" && shape) {
      if (shape.title && !title) title = shape.paragraphs.join(" ");
      else if (shape.paragraphs.length > 0) blocks.push(shape.paragraphs.join("\n"));
      shape = null;
    }
  }
  return { title, blocks };
}

/** The opening tags named `name` in `xml`, each as its text between `<` and `>`: one indexOf pass. */
function tagsNamed(xml: string, name: string): string[] {
  const tags: string[] = [];
  for (let at = xml.indexOf(`<${name}`); at >= 0; at = xml.indexOf(`<${name}`, at + 1)) {
    const close = xml.indexOf(">", at);
    if (close < 0) break;
    const tag = xml.slice(at + 1, close);
    const after = tag.charAt(name.length);
    if (after === " " || after === "/" || after === "") tags.push(tag);
  }
  return tags;
}

/** An attribute's value in a tag's text (`name="value"`), undefined when absent. */
function attribute(tag: string, name: string): string | undefined {
  const start = tag.indexOf(` ${name}="`);
  if (start < 0) return undefined;
  const from = start + name.length + 3;
  const end = tag.indexOf('"', from);
  return end < 0 ? undefined : tag.slice(from, end);
}

/**
 * The slides' entries in the order the deck shows them: the presentation's slide list
 * (p:sldIdLst) through its relationships. Slides moved in PowerPoint keep their file names, so
 * the names' numbers are only the fallback, for a deck whose list cannot be read.
 */
async function slidesInShownOrder(
  zip: { file(name: string): { async(type: "string"): Promise<string> } | null },
  names: string[],
) {
  const byNumber = names
    .map((name) => ({ name, number: Number(/^ppt\/slides\/slide(\d+)\.xml$/.exec(name)?.[1]) }))
    .filter((slide) => Number.isInteger(slide.number))
    .sort((a, b) => a.number - b.number)
    .map((slide) => slide.name);
  const [presentation, relationships] = await Promise.all([
    zip.file("ppt/presentation.xml")?.async("string"),
    zip.file("ppt/_rels/presentation.xml.rels")?.async("string"),
  ]);
  if (!presentation || !relationships) return byNumber;
  const targets = new Map<string, string>();
  for (const tag of tagsNamed(relationships, "Relationship")) {
    const id = attribute(tag, "Id");
    const target = attribute(tag, "Target");
    if (id && target) targets.set(id, target.startsWith("/") ? target.slice(1) : `ppt/${target}`);
  }
  const listed = tagsNamed(presentation, "p:sldId").flatMap((tag) => {
    const target = targets.get(attribute(tag, "r:id") ?? "");
    return target && byNumber.includes(target) ? [target] : [];
  });
  return listed.length > 0 ? [...new Set(listed)] : byNumber;
}

export async function pptxToMarkdown(bytes: Uint8Array, maxChars: number): Promise<string> {
  checkZip("pptx", bytes);
  const { default: JSZip } = await import("jszip");
  let zip: InstanceType<typeof JSZip>;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch (error) {
    throw unreadable("pptx", error);
  }
  let slides: string[];
  try {
    slides = await slidesInShownOrder(zip, Object.keys(zip.files));
  } catch (error) {
    throw unreadable("pptx", error);
  }
  if (slides.length === 0) throw new ExtractionFailed("The PPTX has no slides: there is no text to index.");
  const sections: string[] = [];
  let length = 0;
  for (const [index, slide] of slides.entries()) {
    let xml: string;
    try {
      xml = await zip.file(slide)!.async("string");
    } catch (error) {
      throw unreadable("pptx", error);
    }
    const { title, blocks } = slideToMarkdown(xml);
    const section = [`# Slide ${index + 1}${title ? `: ${title}` : ""}`, ...blocks].join("\n\n");
    length += section.length + 2;
    if (length > maxChars) throw overCap("The PPTX's text", maxChars);
    sections.push(section);
  }
  return sections.join("\n\n");
}
