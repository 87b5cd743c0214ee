// A chat message's text as markdown. react-markdown's default URL sanitizer stays on (no
// javascript: or data: links); links open in a new tab without a referrer, and images are shown
// as links, so a reply cannot make the browser fetch a URL by itself (no exfiltration by image).
import Markdown, { type Components } from "react-markdown";

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  ),
  img: ({ src, alt }) =>
    typeof src === "string" && src ? (
      <a href={src} target="_blank" rel="noopener noreferrer nofollow">
        {alt || src}
      </a>
    ) : (
      <>{alt}</>
    ),
};

export function ChatMarkdown({ text }: { text: string }) {
  return (
    <div className="chat-text markdown-body">
      <Markdown components={components}>{text}</Markdown>
    </div>
  );
}
