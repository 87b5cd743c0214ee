// The directory and single sign-on guide (docs/directory-and-sso.md) as a page, for the console's
// Directory page to link to: one source for the guide, read from docs/ beside the server.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Metadata } from "next";
import Link from "next/link";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

export const metadata: Metadata = { title: "Directory and single sign-on · Atrium" };

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
        <ReactMarkdown components={components} remarkPlugins={[remarkGfm]}>
          {markdown}
        </ReactMarkdown>
      </article>
    </main>
  );
}
