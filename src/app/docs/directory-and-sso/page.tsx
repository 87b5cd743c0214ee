// The directory and single sign-on guide (docs/directory-and-sso.md) as a page, for the console's
// Directory page to link to: one source for the guide, read from docs/ beside the server.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Metadata } from "next";
import Link from "next/link";
import ReactMarkdown, { type Components } from "react-markdown";

export const metadata: Metadata = { title: "Directory and single sign-on · Atrium" };

/**
 * Tables as lists: the renderer here reads CommonMark, which has no tables. "| Tenant URL | `…` |"
 * becomes "- **Tenant URL**: `…`"; a table's header and rule rows are dropped.
 */
function tablesAsLists(markdown: string): string {
  return markdown
    .split("\n")
    .flatMap((line) => {
      if (!/^\s*\|.*\|\s*$/.test(line)) return [line];
      const cells = line
        .trim()
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim());
      if (cells.every((cell) => cell === "" || /^:?-+:?$/.test(cell))) return [];
      const [first, ...rest] = cells;
      return [`- **${first}**${rest.length ? `: ${rest.filter(Boolean).join(" — ")}` : ""}`];
    })
    .join("\n");
}

// Links to the other files of docs/ lead nowhere on this site: their text stays, as text.
const components: Components = {
  a: ({ href, children }) => (href && /^[\w-]+\.md(#|$)/.test(href) ? <>{children}</> : <a href={href}>{children}</a>),
};

export default function DirectoryGuidePage() {
  const markdown = readFileSync(path.join(process.cwd(), "docs", "directory-and-sso.md"), "utf8");
  return (
    <main className="guide">
      <p>
        <Link href="/directory">← Back to the Directory page</Link>
      </p>
      <article>
        <ReactMarkdown components={components}>{tablesAsLists(markdown)}</ReactMarkdown>
      </article>
    </main>
  );
}
