"use client";
// A chat message's text as markdown. react-markdown's default URL sanitizer stays on (no
// javascript: or data: links); links open in a new tab without a referrer, and images are shown
// as links, so a reply cannot make the browser fetch a URL by itself (no exfiltration by image).
// Citation markers `[n]` become buttons that open the cited passage, and so do `page:` and
// `source:` links to a cited page or source; such a link to something not cited is plain text,
// never an empty link. Code blocks get a copy button; tables scroll inside their own box.
import { useState, type ReactNode } from "react";
import Markdown, { defaultUrlTransform, type Components } from "react-markdown";
import { useChatText } from "./chat-i18n";

/** A passage an answer cites, as stored with the message. */
export interface ChatCitation {
  n: number;
  kind: "page" | "source" | "attachment";
  id: string;
  /** Null for a file attached to the conversation. */
  knowledgebaseId: string | null;
  title: string;
  heading: string | null;
  text: string;
}

const CITE_PREFIX = "#cite-";

/** `[n]` for a known citation becomes a link to it; one pass, no backtracking. */
function linkCitations(text: string, citations: ChatCitation[]): string {
  if (citations.length === 0) return text;
  const known = new Set(citations.map((c) => c.n));
  return text.replace(/\[(\d{1,3})\](?!\()/g, (marker, n: string) =>
    known.has(Number(n)) ? `[${n}](${CITE_PREFIX}${n})` : marker,
  );
}

/** Keeps `page:`/`source:` links (react-markdown would drop them) so they can open the viewer. */
function urlTransform(url: string): string {
  return url.startsWith("page:") || url.startsWith("source:") ? url : defaultUrlTransform(url);
}

function CodeBlock({ children }: { children: ReactNode }) {
  const t = useChatText();
  const [copied, setCopied] = useState(false);
  const [box, setBox] = useState<HTMLPreElement | null>(null);
  return (
    <div className="chat-code">
      <button
        type="button"
        className="chat-code-copy"
        onClick={() => {
          void navigator.clipboard?.writeText(box?.innerText ?? "").then(() => {
            setCopied(true);
            setTimeout(() => setCopied(false), 1500);
          });
        }}
      >
        {copied ? t("markdown.copied") : t("markdown.copyCode")}
      </button>
      <pre ref={setBox}>{children}</pre>
    </div>
  );
}

export function ChatMarkdown({
  text,
  citations = [],
  onCite,
}: {
  text: string;
  citations?: ChatCitation[];
  onCite?: (citation: ChatCitation) => void;
}) {
  const t = useChatText();
  const byNumber = new Map(citations.map((c) => [c.n, c]));
  const byTarget = new Map(citations.map((c) => [`${c.kind}:${c.id}`, c]));
  const components: Components = {
    a: ({ href, children }) => {
      const cited = href?.startsWith(CITE_PREFIX)
        ? byNumber.get(Number(href.slice(CITE_PREFIX.length)))
        : href
          ? byTarget.get(href)
          : undefined;
      if (cited && onCite) {
        return (
          <button
            type="button"
            className={href?.startsWith(CITE_PREFIX) ? "chat-cite" : "chat-cite-link"}
            onClick={() => onCite(cited)}
            aria-label={t("citations.cite", { n: cited.n, title: cited.title })}
          >
            {href?.startsWith(CITE_PREFIX) ? cited.n : children}
          </button>
        );
      }
      if (!href || href.startsWith("page:") || href.startsWith("source:") || href.startsWith(CITE_PREFIX))
        return <>{children}</>;
      return (
        <a href={href} target="_blank" rel="noopener noreferrer nofollow">
          {children}
        </a>
      );
    },
    img: ({ src, alt }) =>
      typeof src === "string" && src ? (
        <a href={src} target="_blank" rel="noopener noreferrer nofollow">
          {alt || src}
        </a>
      ) : (
        <>{alt}</>
      ),
    pre: ({ children }) => <CodeBlock>{children}</CodeBlock>,
    table: ({ children }) => (
      <div className="chat-table" tabIndex={0} role="region" aria-label={t("markdown.table")}>
        <table>{children}</table>
      </div>
    ),
  };
  return (
    <div className="chat-text markdown-body">
      <Markdown components={components} urlTransform={urlTransform}>
        {linkCitations(text, citations)}
      </Markdown>
    </div>
  );
}
