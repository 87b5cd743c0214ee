// Page markdown as HTML. Pages are written by anyone with write access (API keys, agents), so
// links and images keep react-markdown's URL sanitizer; Atrium's own `page:` and `source:`
// links become in-page anchors.
import ReactMarkdown, { defaultUrlTransform, type Components } from "react-markdown";

const ATRIUM_LINK = /^(page|source):/i;
/** Schemes react-markdown allows that a page has no use for. */
const UNUSED_SCHEME = /^(ircs?|xmpp):/i;

/** Keeps http, https, mailto, relative links and fragments; anything else becomes "". */
export function previewUrl(url: string): string {
  if (ATRIUM_LINK.test(url)) return `#${url}`;
  const safe = defaultUrlTransform(url);
  return UNUSED_SCHEME.test(safe) ? "" : safe;
}

const components: Components = {
  // An image whose source the sanitizer dropped is shown as its alt text, not as `<img src="">`.
  img: ({ src, alt }) => (typeof src === "string" && src ? <img src={src} alt={alt ?? ""} /> : <>{alt}</>),
};

export function MarkdownPreview({ markdown }: { markdown: string }) {
  return (
    <ReactMarkdown urlTransform={previewUrl} components={components}>
      {markdown}
    </ReactMarkdown>
  );
}
