// What every extractor shares: its failure, markdown tables, and HTML to markdown with tables
// kept as tables (turndown alone flattens them into lines of text). turndown is imported lazily.
import type TurndownService from "turndown";

export class ExtractionFailed extends Error {
  override readonly name = "ExtractionFailed";
}

/** A table cell's text on one line, its pipes escaped. */
export function tableCell(value: unknown): string {
  return String(value ?? "")
    .replace(/\|/g, "\\|")
    .replace(/\s+/g, " ")
    .trim();
}

/** Rows as a markdown table, the first row its header, every row as wide as the widest. */
export function markdownTable(rows: readonly (readonly unknown[])[]): string {
  const width = Math.max(1, ...rows.map((row) => row.length));
  const line = (row: readonly unknown[]) =>
    `| ${Array.from({ length: width }, (_, i) => tableCell(row[i])).join(" | ")} |`;
  const [header = [], ...body] = rows;
  return [line(header), `| ${Array(width).fill("---").join(" | ")} |`, ...body.map(line)].join("\n");
}

type Node = TurndownService.Node;

/** The rows of a table element, each its cells' text; a nested table's rows stay with it. */
function tableRows(table: Node): string[][] {
  const rows: string[][] = [];
  for (const row of Array.from(table.querySelectorAll("tr"))) {
    if (row.closest("table") !== table) continue;
    const cells = Array.from(row.children).filter((cell) => cell.nodeName === "TD" || cell.nodeName === "TH");
    if (cells.length > 0) rows.push(cells.map((cell) => cell.textContent ?? ""));
  }
  return rows;
}

/** turndown with atx headings, fenced code and tables as markdown tables. */
export async function markdownConverter(): Promise<TurndownService> {
  const { default: Turndown } = await import("turndown");
  const turndown = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  turndown.remove(["script", "style", "noscript"]);
  turndown.addRule("table", {
    filter: "table",
    replacement: (_content, node) => {
      const rows = tableRows(node);
      return rows.length > 0 ? `\n\n${markdownTable(rows)}\n\n` : "";
    },
  });
  return turndown;
}

/** An HTML fragment (a converter's output, an article's content) as markdown. */
export async function htmlFragmentToMarkdown(html: string): Promise<string> {
  return (await markdownConverter()).turndown(html).trim();
}
