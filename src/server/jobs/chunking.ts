// Splits a document's text (markdown, or plain text that has none) into passages that read on
// their own: a chunk never cuts a table row, a list item's line or a code block line in half,
// a top-level section (# or ##) always starts a new chunk, a chunk that continues a section
// repeats the end of the previous one (overlap), and each chunk knows the headings above it.
import { chunkText } from "./extract";

export interface Chunk {
  text: string;
  /** The headings above the chunk's start, outermost first, joined by " > " ("" before any). */
  heading: string;
}

export interface ChunkOptions {
  /** Upper bound on a chunk's length in characters (overlap included). */
  size?: number;
  /** About how much of the previous chunk a continuing chunk repeats. */
  overlap?: number;
}

/** The separator of heading paths, stored with the chunk and shown in citations. */
export const HEADING_SEPARATOR = " > ";

type BlockKind = "heading" | "table" | "list" | "code" | "paragraph";
interface Block {
  kind: BlockKind;
  lines: string[];
  /** Heading path in force at this block (for a heading block: including itself). */
  path: string[];
  level?: number;
}

const HASH = 0x23;
const WHITESPACE = /\s/;

/**
 * The level and text of an ATX heading line (`## Install ##`), null for any other line. Read in
 * one pass by hand: documents are untrusted, and the pattern this replaces backtracked
 * cubically over a heading padded with spaces.
 */
function headingOf(line: string): { level: number; text: string } | null {
  let level = 0;
  while (level < line.length && line.charCodeAt(level) === HASH) level++;
  if (level === 0 || level > 6 || level === line.length || !WHITESPACE.test(line[level]!)) return null;
  const text = line.slice(level).trim();
  // A closing run of '#' counts when it stands apart from the text, or is all of it.
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === HASH) end--;
  if (end === 0) return { level, text: "" };
  if (end < text.length && WHITESPACE.test(text[end - 1]!)) return { level, text: text.slice(0, end).trimEnd() };
  return { level, text };
}

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;
const FENCE = /^\s*(```|~~~)/;

function blocksOf(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  const path: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === "") {
      i++;
      continue;
    }
    const heading = headingOf(line);
    if (heading) {
      const { level } = heading;
      path.length = Math.min(path.length, level - 1);
      while (path.length < level - 1) path.push("");
      path.push(heading.text);
      blocks.push({ kind: "heading", lines: [line], path: path.filter(Boolean), level });
      i++;
      continue;
    }
    const start = i;
    let kind: BlockKind;
    if (FENCE.test(line)) {
      kind = "code";
      const fence = FENCE.exec(line)![1]!;
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith(fence)) i++;
      i = Math.min(i + 1, lines.length);
    } else if (line.trim().startsWith("|")) {
      kind = "table";
      while (i < lines.length && lines[i]!.trim().startsWith("|")) i++;
    } else if (LIST_ITEM.test(line)) {
      kind = "list";
      // Items and their indented continuation lines, up to a blank line not followed by more of the list.
      while (i < lines.length) {
        const current = lines[i]!;
        if (current.trim() === "") {
          const next = lines[i + 1] ?? "";
          if (LIST_ITEM.test(next) || /^\s{2,}\S/.test(next)) {
            i++;
            continue;
          }
          break;
        }
        if (i > start && !LIST_ITEM.test(current) && !/^\s/.test(current) && headingOf(current)) break;
        i++;
      }
    } else {
      kind = "paragraph";
      while (
        i < lines.length &&
        lines[i]!.trim() !== "" &&
        !headingOf(lines[i]!) &&
        !FENCE.test(lines[i]!) &&
        !lines[i]!.trim().startsWith("|")
      )
        i++;
    }
    blocks.push({ kind, lines: lines.slice(start, i), path: path.filter(Boolean) });
  }
  return blocks;
}

/** Pieces of a block no longer than `size`, cut only between rows, items or lines (a table's header rows are repeated). */
function piecesOf(block: Block, size: number): string[] {
  const text = block.lines.join("\n").trim();
  if (text.length <= size) return [text];
  if (block.kind === "paragraph") return chunkText(text, size);
  const tableHeader = block.kind === "table" ? block.lines.slice(0, 2).join("\n") + "\n" : "";
  // A header too long to leave room for rows is not repeated (room for none would never end).
  const header = tableHeader.length <= size / 2 ? tableHeader : "";
  const rows = header ? block.lines.slice(2) : block.lines;
  const pieces: string[] = [];
  let current = "";
  for (const row of rows) {
    // A single line longer than a chunk can only be cut inside.
    const parts = row.length + header.length > size ? chunkText(row, size - header.length) : [row];
    for (const part of parts) {
      if (current && header.length + current.length + 1 + part.length > size) {
        pieces.push(header + current);
        current = "";
      }
      current = current ? `${current}\n${part}` : part;
    }
  }
  if (current) pieces.push(header + current);
  return pieces;
}

/** The end of a chunk, from a line or sentence start, about `overlap` characters long. */
function tailOf(text: string, overlap: number): string {
  if (overlap <= 0 || text.length <= overlap) return overlap > 0 ? text : "";
  const window = text.slice(-overlap);
  const boundary = window.search(/(?<=[.!?:]\s|\n)\S/);
  if (boundary >= 0) return window.slice(boundary);
  const space = window.indexOf(" ");
  return space >= 0 ? window.slice(space + 1) : window;
}

export function chunkMarkdown(text: string, options: ChunkOptions = {}): Chunk[] {
  const size = options.size ?? 1000;
  const overlap = Math.min(options.overlap ?? 150, Math.floor(size / 4));
  const chunks: Chunk[] = [];
  let parts: string[] = [];
  let heading: string[] = [];
  let length = 0;
  // Headings alone do not make a chunk: they stay with the text that follows them.
  let hasBody = false;

  const flush = () => {
    const body = parts.join("\n\n").trim();
    if (body) chunks.push({ text: body, heading: heading.join(HEADING_SEPARATOR) });
    parts = [];
    length = 0;
    hasBody = false;
  };
  const add = (piece: string, path: string[], continuing: boolean) => {
    if (parts.length && length + 2 + piece.length > size) {
      const previous = parts.join("\n\n");
      flush();
      // A chunk that continues the same section starts with the end of the previous one.
      const tail = continuing ? tailOf(previous, overlap) : "";
      if (tail && tail.length + 2 + piece.length <= size) {
        parts.push(tail);
        length = tail.length;
      }
      heading = path;
    }
    if (!parts.length) heading = path;
    length += (parts.length ? 2 : 0) + piece.length;
    parts.push(piece);
  };

  for (const block of blocksOf(text)) {
    if (block.kind === "heading") {
      if (block.level! <= 2 && hasBody) flush();
      add(block.lines[0]!.trim(), block.path, false);
      if (!hasBody) heading = block.path;
      continue;
    }
    for (const piece of piecesOf(block, size - overlap)) {
      add(piece, block.path, true);
      hasBody = true;
    }
  }
  flush();
  return chunks;
}
