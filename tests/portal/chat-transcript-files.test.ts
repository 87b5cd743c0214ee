// A question's files in the chat transcript (console, portal, embed) download by their names,
// from the door that serves them.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ChatTranscript } from "@/components/chat/chat-transcript";

const messages = [
  {
    id: "m1",
    role: "user",
    content: "How long is the warranty?",
    attachments: [{ id: "f1", name: "drill-manual.pdf", sizeBytes: 2048 }],
  },
];

function sentFiles(files?: { url: (fileId: string) => string }): string {
  const html = renderToStaticMarkup(createElement(ChatTranscript, { messages, pending: null, files }));
  return /<ul[^>]*data-testid="sent-files"[^>]*>(.*?)<\/ul>/.exec(html)![1]!;
}

describe("the transcript's sent files", () => {
  it("link each file's name to its download at the door", () => {
    const html = sentFiles({ url: (fileId) => `/api/portal/help/files/${fileId}/content` });
    expect(html).toContain(
      '<a href="/api/portal/help/files/f1/content" download="drill-manual.pdf">drill-manual.pdf</a>',
    );
  });

  it("show the name alone where no door serves downloads", () => {
    expect(sentFiles()).not.toContain("<a ");
    expect(sentFiles()).toContain("drill-manual.pdf");
  });
});
