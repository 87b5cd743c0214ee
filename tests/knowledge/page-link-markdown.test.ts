// The "Insert link" of the page editor writes pageLinkMarkdown; the pages service must read back
// exactly the page it names, whatever the title holds.
import { describe, expect, it } from "vitest";
import { pageLinkMarkdown } from "@/schemas/knowledge/page";
import { parseLinks } from "@/server/services/knowledge/page-links";
import { api } from "../helpers";
import { newPage, tenantWithKnowledgebase } from "../knowledge-helpers";

describe("pageLinkMarkdown", () => {
  it("is read as a link to that page even when the title holds brackets or parentheses", () => {
    const id = "11111111-1111-4111-8111-111111111111";
    for (const title of ["Refunds", "Refunds [draft] (v2)", "]](page:22222222-2222-4222-8222-222222222222)", "[]"]) {
      expect(parseLinks(`See ${pageLinkMarkdown({ id, title })}.`), title).toEqual([{ kind: "page", id }]);
    }
  });

  it("resolves to the page's title when saved", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const target = await newPage(key, kbId, { title: "Refund policy [2026]" });
    const linker = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key,
      body: {
        title: "Linker",
        markdown: `Read ${pageLinkMarkdown({ id: target, title: "Refund policy [2026]" })} first.`,
      },
    });
    expect(linker.status).toBe(201);
    expect(linker.body.links).toEqual({
      pages: [{ id: target, title: "Refund policy [2026]" }],
      sources: [],
      unresolved: [],
    });
  });
});
