// The links of page markdown, `[text](page:<id>)` and `[text](source:<id>)`: read in one pass,
// resolved against the knowledgebase's pages and sources, and kept beside the page.
import { isUuid } from "@/schemas/common";
import type { PageLinks } from "@/schemas/knowledge/page";
import type { Db } from "@/server/db";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

const WHITESPACE = /\s/;

/** Where the target of `(page:…)` or `(source:…)` starting at `at` ends (its `)`), or where it stops being one. */
function targetEnd(markdown: string, at: number): { end: number; closed: boolean } {
  let end = at;
  while (end < markdown.length && markdown[end] !== ")" && !WHITESPACE.test(markdown[end]!)) end++;
  return { end, closed: end > at && markdown[end] === ")" };
}

/**
 * The `[text](page:<id>)` and `[text](source:<id>)` links of page markdown, each once, in order
 * (the text holds no `]`; the id no `)` nor whitespace). One pass: page markdown is untrusted, and
 * the regular expression this replaces was quadratic over a run of `[`.
 */
export function parseLinks(markdown: string): { kind: "page" | "source"; id: string }[] {
  const seen = new Set<string>();
  const links: { kind: "page" | "source"; id: string }[] = [];
  let opened = false;
  // A target that stopped short stops every `](page:` before that point short too: skip them.
  let failedUntil = -1;
  for (let i = 0; i < markdown.length; i++) {
    const char = markdown[i];
    if (char === "[") opened = true;
    if (char !== "]") continue;
    const kind =
      !opened || i < failedUntil
        ? undefined
        : markdown.startsWith("(page:", i + 1)
          ? "page"
          : markdown.startsWith("(source:", i + 1)
            ? "source"
            : undefined;
    opened = false;
    if (!kind) continue;
    const start = i + kind.length + 3;
    const { end, closed } = targetEnd(markdown, start);
    if (!closed) {
      failedUntil = end;
      continue;
    }
    const id = markdown.slice(start, end).toLowerCase();
    i = end;
    if (seen.has(`${kind}:${id}`)) continue;
    seen.add(`${kind}:${id}`);
    links.push({ kind, id });
  }
  return links;
}

/** Resolves the links of `markdown` against the knowledgebase's pages and sources. */
export async function resolveLinks(db: Db | Tx, knowledgebaseId: string, markdown: string): Promise<PageLinks> {
  const links = parseLinks(markdown);
  const pageIds = links.filter((l) => l.kind === "page" && isUuid(l.id)).map((l) => l.id);
  const sourceIds = links.filter((l) => l.kind === "source" && isUuid(l.id)).map((l) => l.id);
  const [pages, sources] = await Promise.all([
    pageIds.length
      ? db.page.findMany({ where: { knowledgebaseId, id: { in: pageIds } }, select: { id: true, title: true } })
      : [],
    sourceIds.length
      ? db.source.findMany({ where: { knowledgebaseId, id: { in: sourceIds } }, select: { id: true, name: true } })
      : [],
  ]);
  const found = new Set([...pages.map((p) => `page:${p.id}`), ...sources.map((s) => `source:${s.id}`)]);
  return {
    pages: pageIds.flatMap((id) => pages.filter((p) => p.id === id)),
    sources: sourceIds.flatMap((id) => sources.filter((s) => s.id === id)),
    unresolved: links.filter((l) => !found.has(`${l.kind}:${l.id}`)),
  };
}

export async function saveLinks(tx: Tx, pageId: string, markdown: string): Promise<void> {
  await tx.pageLink.deleteMany({ where: { pageId } });
  const links = parseLinks(markdown);
  if (links.length)
    await tx.pageLink.createMany({
      data: links.map((link) => ({ pageId, kind: link.kind, targetId: link.id })),
      skipDuplicates: true,
    });
}
