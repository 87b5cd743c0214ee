// The markdown preview renders what anyone with write access (an API key, a reviewed agent
// write) put in a page: links and images keep a URL sanitizer, with Atrium's own `page:` and
// `source:` links turned into in-page anchors.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { MarkdownPreview, previewUrl } from "@/components/markdown-preview";

function render(markdown: string): string {
  return renderToStaticMarkup(createElement(MarkdownPreview, { markdown }));
}

describe("the markdown preview", () => {
  it("drops javascript:, data:, vbscript: and other schemes from links and images", () => {
    for (const url of [
      "javascript:alert(document.cookie)",
      "JavaScript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox(1)",
      "file:///etc/passwd",
      "xmpp:a@b",
      "irc://x",
    ]) {
      const html = render(`[click](${url}) ![img](${url})`);
      expect(html).not.toMatch(/href="[^"]*(script|data|file|xmpp|irc)/i);
      expect(html).not.toMatch(/src="[^"]*(script|data|file|xmpp|irc)/i);
      expect(html).not.toContain("<img");
      expect(html).toContain("img");
    }
  });

  it("keeps an image from an https address", () => {
    expect(render("![logo](https://example.com/logo.png)")).toContain(
      '<img src="https://example.com/logo.png" alt="logo"/>',
    );
  });

  it("keeps http, https, mailto, relative links and fragments", () => {
    const html = render(
      "[a](https://example.com/x) [b](http://example.com) [c](mailto:help@example.com) [d](/knowledge) [e](#top)",
    );
    for (const href of ["https://example.com/x", "http://example.com", "mailto:help@example.com", "/knowledge", "#top"])
      expect(html).toContain(`href="${href}"`);
  });

  it("turns page: and source: links into in-page anchors", () => {
    const html = render("[refunds](page:0b6c9a5e-1111-4222-8333-944455556666) [pdf](source:abc)");
    expect(html).toContain('href="#page:0b6c9a5e-1111-4222-8333-944455556666"');
    expect(html).toContain('href="#source:abc"');
    expect(previewUrl("page:x")).toBe("#page:x");
    expect(previewUrl("javascript:alert(1)")).toBe("");
  });
});
