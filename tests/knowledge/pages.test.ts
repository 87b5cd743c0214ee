// Pages: create, read with links and backlinks, patch operations (exact markdown), all-or-nothing
// anchors, revisions and authors, move without cycles, delete.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { applyPatch } from "@/server/services/knowledge/page-patches";
import { addPerson, api, issueKey, signInCookie, trpc } from "../helpers";
import { newPage, pageMarkdown, tenantWithKnowledgebase } from "../knowledge-helpers";

const BASE = "# Title\n\nAlpha line.\nBeta line.\nGamma line.\n";

async function patch(key: string, kbId: string, pageId: string, body: unknown) {
  return api("PATCH", `/knowledgebases/${kbId}/pages/${pageId}`, { key, body });
}

describe("patch operations", () => {
  const cases: [string, unknown[], string][] = [
    [
      "replace",
      [{ op: "replace", oldString: "Beta line.", newString: "Beta, edited." }],
      "# Title\n\nAlpha line.\nBeta, edited.\nGamma line.\n",
    ],
    [
      "insert_before",
      [{ op: "insert_before", anchor: "Gamma line.", text: "Inserted.\n" }],
      "# Title\n\nAlpha line.\nBeta line.\nInserted.\nGamma line.\n",
    ],
    [
      "insert_after",
      [{ op: "insert_after", anchor: "Alpha line.", text: " (after)" }],
      "# Title\n\nAlpha line. (after)\nBeta line.\nGamma line.\n",
    ],
    ["prepend", [{ op: "prepend", text: "Top\n" }], "Top\n# Title\n\nAlpha line.\nBeta line.\nGamma line.\n"],
    ["append", [{ op: "append", text: "End" }], "# Title\n\nAlpha line.\nBeta line.\nGamma line.\nEnd"],
    [
      "replace_range",
      [{ op: "replace_range", from: "Alpha", to: "Beta line.", text: "Merged." }],
      "# Title\n\nMerged.\nGamma line.\n",
    ],
    [
      "several in order, each on the previous result",
      [
        { op: "replace", oldString: "Alpha", newString: "Delta" },
        { op: "insert_after", anchor: "Delta line.", text: "\nEpsilon line." },
        { op: "replace_range", from: "Epsilon", to: "Gamma line.", text: "Z." },
      ],
      "# Title\n\nDelta line.\nZ.\n",
    ],
  ];

  for (const [name, operations, expected] of cases) {
    it(`${name} gives the exact markdown through the API`, async () => {
      const { tenant, kbId } = await tenantWithKnowledgebase();
      const key = tenant.orgKey.secret;
      const pageId = await newPage(key, kbId, { title: "Doc", markdown: BASE });
      const response = await patch(key, kbId, pageId, { patch: operations });
      expect(response.status).toBe(200);
      expect(response.body.status).toBe("applied");
      expect(await pageMarkdown(key, kbId, pageId)).toBe(expected);
    });
  }

  it("replace_range searches `to` after `from`", () => {
    expect(applyPatch("b a b c", [{ op: "replace_range", from: "a", to: "b", text: "X" }])).toBe("b X c");
  });

  it("refuses the whole patch when any anchor is missing or repeated, naming the operation and anchor; nothing changes", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const pageId = await newPage(key, kbId, { title: "Doc", markdown: BASE });
    const before = await getDb().page.findUniqueOrThrow({ where: { id: pageId } });
    const revisionsBefore = await getDb().pageRevision.count({ where: { pageId } });
    const missing = await patch(key, kbId, pageId, {
      patch: [
        { op: "replace", oldString: "Alpha", newString: "A" },
        { op: "insert_after", anchor: "Nowhere", text: "x" },
      ],
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("invalid_request");
    expect(missing.body.error.message).toContain("Operation 1 (insert_after)");
    expect(missing.body.error.message).toContain('"Nowhere"');
    expect(missing.body.error).toMatchObject({ operationIndex: 1, anchor: "Nowhere" });
    const repeated = await patch(key, kbId, pageId, {
      patch: [{ op: "replace", oldString: "line.", newString: "row." }],
    });
    expect(repeated.status).toBe(400);
    expect(repeated.body.error.message).toContain("appears 3 times");
    const tooMany = await patch(key, kbId, pageId, {
      patch: Array.from({ length: 51 }, () => ({ op: "append", text: "x" })),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe("invalid_request");
    const after = await getDb().page.findUniqueOrThrow({ where: { id: pageId } });
    expect(after.markdown).toBe(before.markdown);
    expect(after.updatedAt).toEqual(before.updatedAt);
    expect(await getDb().pageRevision.count({ where: { pageId } })).toBe(revisionsBefore);
  });

  it("accepts exactly 50 operations and an optional title", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const pageId = await newPage(key, kbId, { title: "Doc", markdown: "" });
    const response = await patch(key, kbId, pageId, {
      title: "Renamed",
      patch: Array.from({ length: 50 }, () => ({ op: "append", text: "x" })),
    });
    expect(response.status).toBe(200);
    expect(response.body.page.title).toBe("Renamed");
    expect(await pageMarkdown(key, kbId, pageId)).toBe("x".repeat(50));
  });
});

describe("pages", () => {
  it("creates with 201, records revisions with the personal key's member as author and none for an organization key", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const created = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key: tenant.personalKey.secret,
      body: { title: "Mine", markdown: "hello" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: "applied",
      page: { title: "Mine", knowledgebaseId: kbId },
      reviewPath: null,
      links: { pages: [], sources: [], unresolved: [] },
    });
    const pageId = created.body.page.id;
    await patch(tenant.orgKey.secret, kbId, pageId, { patch: [{ op: "append", text: "!" }] });
    const revisions = await getDb().pageRevision.findMany({ where: { pageId }, orderBy: { createdAt: "asc" } });
    expect(revisions.map((r) => [r.markdown, r.authorMemberId])).toEqual([
      ["hello", tenant.owner.member.id],
      ["hello!", null],
    ]);
    expect(revisions[0]!.id).toBe(created.body.revisionId);
  });

  it("saving or patching a page to what it already holds makes no revision and records no change", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.personalKey.secret;
    const created = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key,
      body: { title: "Same", markdown: "alpha" },
    });
    const pageId = created.body.page.id;
    const before = await getDb().page.findUniqueOrThrow({ where: { id: pageId } });
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);

    const saved = await trpc(
      "mutation",
      "knowledge.savePage",
      { knowledgebaseId: kbId, pageId, title: "Same", markdown: "alpha" },
      { cookie },
    );
    expect(saved.status).toBe(200);
    expect(saved.body.result.data).toMatchObject({ status: "applied", revisionId: created.body.revisionId });
    const patched = await patch(key, kbId, pageId, {
      patch: [{ op: "replace", oldString: "alpha", newString: "alpha" }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.revisionId).toBe(created.body.revisionId);

    expect(await getDb().pageRevision.count({ where: { pageId } })).toBe(1);
    expect((await getDb().page.findUniqueOrThrow({ where: { id: pageId } })).updatedAt).toEqual(before.updatedAt);
    expect(await getDb().auditEvent.count({ where: { targetId: pageId, action: "page.update" } })).toBe(0);

    // A real change still makes its revision.
    await trpc("mutation", "knowledge.savePage", { knowledgebaseId: kbId, pageId, markdown: "alpha beta" }, { cookie });
    expect(await getDb().pageRevision.count({ where: { pageId } })).toBe(2);
  });

  it("parses page: and source: links on every write, with unresolved ones, related pages and backlinks", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const target = await newPage(key, kbId, { title: "Target" });
    const source = await api("POST", `/knowledgebases/${kbId}/sources`, {
      key,
      body: { name: "faq.md", contentMarkdown: "# FAQ" },
    });
    const sourceId = source.body.source.id;
    const missing = "11111111-1111-4111-8111-111111111111";
    const created = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key,
      body: {
        title: "Linker",
        markdown: `See [t](page:${target}) and [f](source:${sourceId}) and [m](page:${missing}).`,
      },
    });
    expect(created.body.links).toEqual({
      pages: [{ id: target, title: "Target" }],
      sources: [{ id: sourceId, name: "faq.md" }],
      unresolved: [{ kind: "page", id: missing }],
    });
    const linker = created.body.page.id;
    const page = await api("GET", `/knowledgebases/${kbId}/pages/${linker}`, { key });
    expect(page.body).toMatchObject({
      relatedPages: [{ id: target, title: "Target" }],
      attachedFiles: ["faq.md"],
      referencedBy: [],
    });
    const targetPage = await api("GET", `/knowledgebases/${kbId}/pages/${target}`, { key });
    expect(targetPage.body.referencedBy).toEqual([{ id: linker, title: "Linker" }]);
    // A later write drops the link.
    const edited = await patch(key, kbId, linker, {
      patch: [{ op: "replace", oldString: `[t](page:${target}) and `, newString: "" }],
    });
    expect(edited.body.links.pages).toEqual([]);
    expect((await api("GET", `/knowledgebases/${kbId}/pages/${target}`, { key })).body.referencedBy).toEqual([]);
  });

  it("answers not_found for a page of another knowledgebase and a parent outside the knowledgebase", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const otherKb = (await api("POST", "/knowledgebases", { key, body: { name: "Other" } })).body.knowledgebase.id;
    const foreign = await newPage(key, otherKb, { title: "Elsewhere" });
    expect((await api("GET", `/knowledgebases/${kbId}/pages/${foreign}`, { key })).status).toBe(404);
    const orphan = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key,
      body: { title: "x", parentPageId: foreign },
    });
    expect(orphan.status).toBe(404);
    expect(orphan.body.error.code).toBe("not_found");
    expect(await getDb().page.count({ where: { knowledgebaseId: kbId } })).toBe(0);
  });

  it("moves a folder with its subtree, refuses cycles and parents outside the knowledgebase", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const folder = await newPage(key, kbId, { title: "A", isFolder: true });
    const child = await newPage(key, kbId, { title: "B", parentPageId: folder, isFolder: true });
    const grandchild = await newPage(key, kbId, { title: "C", parentPageId: child, markdown: "text" });
    const other = await newPage(key, kbId, { title: "D", isFolder: true });

    const moved = await api("POST", `/knowledgebases/${kbId}/pages/${folder}/move`, {
      key,
      body: { parentPageId: other },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.page).toMatchObject({ id: folder, parentPageId: other, title: "A", knowledgebaseId: kbId });
    const detail = await api("GET", `/knowledgebases/${kbId}`, { key });
    expect(detail.body.pages.find((p: { id: string }) => p.id === grandchild).path).toEqual(["D", "A", "B", "C"]);

    for (const target of [folder, grandchild]) {
      const cycle = await api("POST", `/knowledgebases/${kbId}/pages/${folder}/move`, {
        key,
        body: { parentPageId: target },
      });
      expect(cycle.status).toBe(400);
      expect(cycle.body.error.code).toBe("invalid_request");
    }
    const otherKb = (await api("POST", "/knowledgebases", { key, body: { name: "Other" } })).body.knowledgebase.id;
    const outside = await newPage(key, otherKb, { title: "X" });
    const far = await api("POST", `/knowledgebases/${kbId}/pages/${folder}/move`, {
      key,
      body: { parentPageId: outside },
    });
    expect(far.status).toBe(404);
    expect((await getDb().page.findUniqueOrThrow({ where: { id: folder } })).parentPageId).toBe(other);

    const top = await api("POST", `/knowledgebases/${kbId}/pages/${folder}/move`, {
      key,
      body: { parentPageId: null },
    });
    expect(top.body.page.parentPageId).toBeNull();
    expect((await getDb().page.findUniqueOrThrow({ where: { id: grandchild } })).markdown).toBe("text");
  });

  it("deletes a page (204), refuses a folder with children, and needs admin for personal keys", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const folder = await newPage(key, kbId, { title: "F", isFolder: true });
    const child = await newPage(key, kbId, { title: "C", parentPageId: folder });
    const refused = await api("DELETE", `/knowledgebases/${kbId}/pages/${folder}`, { key });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("invalid_request");
    expect(await getDb().page.count({ where: { knowledgebaseId: kbId } })).toBe(2);

    const member = await addPerson(tenant.operator, "member");
    const memberKey = await issueKey(tenant.operator, { kind: "personal", memberId: member.member.id });
    const forbidden = await api("DELETE", `/knowledgebases/${kbId}/pages/${child}`, { key: memberKey.secret });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe("forbidden_role");
    const viewer = await addPerson(tenant.operator, "viewer");
    const viewerKey = await issueKey(tenant.operator, { kind: "personal", memberId: viewer.member.id });
    const viewerWrite = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key: viewerKey.secret,
      body: { title: "no" },
    });
    expect(viewerWrite.body.error.code).toBe("forbidden_role");
    expect(await getDb().page.count({ where: { knowledgebaseId: kbId } })).toBe(2);

    expect((await api("DELETE", `/knowledgebases/${kbId}/pages/${child}`, { key })).status).toBe(204);
    expect((await api("DELETE", `/knowledgebases/${kbId}/pages/${folder}`, { key })).status).toBe(204);
    expect(await getDb().page.count({ where: { knowledgebaseId: kbId } })).toBe(0);
  });
});
