// The review queue: agent writes wait in a reviewing organization; people's writes do not;
// approval applies (or fails clearly, leaving the page untouched); rejection discards; the
// console (admins) and the admin CLI decide, API keys cannot.
import { execFile } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { addPerson, api, signInCookie, trpc, trpcErrorCode } from "../helpers";
import { drain, newPage, pageMarkdown, sourceOf, tenantWithKnowledgebase } from "../knowledge-helpers";

const reviewing = () => tenantWithKnowledgebase({ settings: { reviewAgentWrites: true } });
const reviewIdOf = (path: string) => path.replace("/reviews/", "");

describe("review queue", () => {
  it("holds an agent page create (202, empty page) until an admin approves it in the console", async () => {
    const { tenant, kbId } = await reviewing();
    const key = tenant.personalKey.secret;
    const created = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key,
      body: { title: "Proposal", markdown: "# Draft\n\nagent text" },
    });
    expect(created.status).toBe(202);
    expect(created.body.status).toBe("pending_review");
    expect(created.body.reviewPath).toMatch(/^\/reviews\/[0-9a-f-]{36}$/);
    const pageId = created.body.page.id;
    expect(await pageMarkdown(key, kbId, pageId)).toBe("");
    expect(await getDb().pageRevision.count({ where: { pageId } })).toBe(0);

    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const list = await trpc("query", "reviews.list", { status: "pending" }, { cookie });
    expect(list.body.result.data.reviews).toEqual([
      expect.objectContaining({
        id: reviewIdOf(created.body.reviewPath),
        kind: "page_create",
        title: "Proposal",
        proposedMarkdown: "# Draft\n\nagent text",
        baseMarkdown: "",
        author: tenant.owner.email,
      }),
    ]);
    const approved = await trpc(
      "mutation",
      "reviews.approve",
      { reviewId: reviewIdOf(created.body.reviewPath) },
      { cookie },
    );
    expect(approved.status).toBe(200);
    expect(approved.body.result.data.review.status).toBe("approved");
    expect(await pageMarkdown(key, kbId, pageId)).toBe("# Draft\n\nagent text");
    const revision = await getDb().pageRevision.findFirstOrThrow({ where: { pageId } });
    expect(revision.id).toBe(created.body.revisionId);
    expect(revision.authorMemberId).toBe(tenant.owner.member.id);
  });

  it("holds an agent edit (202, live page untouched); a person's console write applies at once", async () => {
    const { tenant, kbId } = await reviewing();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const made = await trpc(
      "mutation",
      "knowledge.createPage",
      { knowledgebaseId: kbId, title: "Live", markdown: "one two three" },
      { cookie },
    );
    expect(made.body.result.data.status).toBe("applied");
    const pageId = made.body.result.data.page.id;
    const edit = await api("PATCH", `/knowledgebases/${kbId}/pages/${pageId}`, {
      key: tenant.orgKey.secret,
      body: { patch: [{ op: "replace", oldString: "two", newString: "2" }] },
    });
    expect(edit.status).toBe(202);
    expect(edit.body.status).toBe("pending_review");
    expect(await pageMarkdown(tenant.orgKey.secret, kbId, pageId)).toBe("one two three");
    const review = await getDb().review.findUniqueOrThrow({ where: { id: reviewIdOf(edit.body.reviewPath) } });
    expect(review).toMatchObject({ kind: "page_edit", baseMarkdown: "one two three", proposedMarkdown: "one 2 three" });

    // Refused anchors are refused at once, not queued.
    const bad = await api("PATCH", `/knowledgebases/${kbId}/pages/${pageId}`, {
      key: tenant.orgKey.secret,
      body: { patch: [{ op: "replace", oldString: "four", newString: "4" }] },
    });
    expect(bad.status).toBe(400);
    expect(await getDb().review.count({ where: { pageId } })).toBe(1);

    const approved = await trpc("mutation", "reviews.approve", { reviewId: review.id }, { cookie });
    expect(approved.status).toBe(200);
    expect(await pageMarkdown(tenant.orgKey.secret, kbId, pageId)).toBe("one 2 three");
  });

  it("fails an approval whose anchors no longer match, with a clear reason, leaving the page untouched", async () => {
    const { tenant, kbId } = await reviewing();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const pageId = (
      await trpc(
        "mutation",
        "knowledge.createPage",
        { knowledgebaseId: kbId, title: "P", markdown: "alpha beta" },
        { cookie },
      )
    ).body.result.data.page.id;
    const edit = await api("PATCH", `/knowledgebases/${kbId}/pages/${pageId}`, {
      key: tenant.orgKey.secret,
      body: { patch: [{ op: "replace", oldString: "beta", newString: "BETA" }] },
    });
    await trpc(
      "mutation",
      "knowledge.savePage",
      { knowledgebaseId: kbId, pageId, markdown: "alpha gamma" },
      { cookie },
    );
    const before = await getDb().page.findUniqueOrThrow({ where: { id: pageId } });
    const approval = await trpc(
      "mutation",
      "reviews.approve",
      { reviewId: reviewIdOf(edit.body.reviewPath) },
      { cookie },
    );
    expect(approval.status).toBe(409);
    expect(trpcErrorCode(approval)).toBe("conflict");
    expect(approval.body.error.message).toMatch(/changed since this edit was proposed.*"beta" does not appear/);
    const after = await getDb().page.findUniqueOrThrow({ where: { id: pageId } });
    expect(after.markdown).toBe("alpha gamma");
    expect(after.updatedAt).toEqual(before.updatedAt);
    expect((await getDb().review.findUniqueOrThrow({ where: { id: reviewIdOf(edit.body.reviewPath) } })).status).toBe(
      "pending",
    );
  });

  it("rejects: a pending page create disappears, a pending source is discarded, an edit changes nothing", async () => {
    const { tenant, kbId } = await reviewing();
    const key = tenant.orgKey.secret;
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const page = await api("POST", `/knowledgebases/${kbId}/pages`, { key, body: { title: "Spam" } });
    const source = await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { contentText: "spam" } });
    for (const response of [page, source]) {
      const rejected = await trpc(
        "mutation",
        "reviews.reject",
        { reviewId: reviewIdOf(response.body.reviewPath) },
        { cookie },
      );
      expect(rejected.body.result.data.review.status).toBe("rejected");
    }
    expect(await getDb().page.count({ where: { id: page.body.page.id } })).toBe(0);
    expect(await getDb().source.count({ where: { id: source.body.source.id } })).toBe(0);
    const again = await trpc("mutation", "reviews.reject", { reviewId: reviewIdOf(page.body.reviewPath) }, { cookie });
    expect(trpcErrorCode(again)).toBe("conflict");
  });

  it("approving a pending source starts its indexing", async () => {
    const { tenant, kbId } = await reviewing();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const source = await api("POST", `/knowledgebases/${kbId}/sources`, {
      key: tenant.orgKey.secret,
      body: { contentMarkdown: "# Approved doc" },
    });
    await trpc("mutation", "reviews.approve", { reviewId: reviewIdOf(source.body.reviewPath) }, { cookie });
    await drain();
    expect((await sourceOf(tenant.orgKey.secret, kbId, source.body.source.id)).status).toBe("ready");
  });

  it("lets only admins decide; members may look", async () => {
    const { tenant, kbId } = await reviewing();
    const created = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key: tenant.orgKey.secret,
      body: { title: "x", markdown: "y" },
    });
    const member = await addPerson(tenant.operator, "member");
    const cookie = await signInCookie(member.email, member.password);
    expect((await trpc("query", "reviews.list", { status: "pending" }, { cookie })).status).toBe(200);
    const refused = await trpc(
      "mutation",
      "reviews.approve",
      { reviewId: reviewIdOf(created.body.reviewPath) },
      { cookie },
    );
    expect(trpcErrorCode(refused)).toBe("forbidden_role");
    expect(await pageMarkdown(tenant.orgKey.secret, kbId, created.body.page.id)).toBe("");
  });

  it("moves never wait for review, and pages made in a non-reviewing organization apply at once", async () => {
    const { tenant, kbId } = await reviewing();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const folder = (
      await trpc("mutation", "knowledge.createPage", { knowledgebaseId: kbId, title: "F", isFolder: true }, { cookie })
    ).body.result.data.page.id;
    const page = (await trpc("mutation", "knowledge.createPage", { knowledgebaseId: kbId, title: "P" }, { cookie }))
      .body.result.data.page.id;
    const moved = await api("POST", `/knowledgebases/${kbId}/pages/${page}/move`, {
      key: tenant.orgKey.secret,
      body: { parentPageId: folder },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.page.parentPageId).toBe(folder);
    const plain = await tenantWithKnowledgebase();
    expect(await newPage(plain.tenant.orgKey.secret, plain.kbId, { title: "now" })).toMatch(/[0-9a-f-]{36}/);
  });
});

describe("reviewing at scale", () => {
  async function livePage(cookie: string, kbId: string, markdown: string): Promise<string> {
    return (
      await trpc("mutation", "knowledge.createPage", { knowledgebaseId: kbId, title: "Live", markdown }, { cookie })
    ).body.result.data.page.id;
  }

  it("keeps a rejection's reason and returns it; a reason over the bound is refused and nothing is decided", async () => {
    const { tenant, kbId } = await reviewing();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const made = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key: tenant.orgKey.secret,
      body: { title: "Spam", markdown: "buy now" },
    });
    const reviewId = reviewIdOf(made.body.reviewPath);
    const tooLong = await trpc("mutation", "reviews.reject", { reviewId, reason: "x".repeat(2001) }, { cookie });
    expect(tooLong.status).toBe(400);
    expect(trpcErrorCode(tooLong)).toBe("invalid_request");
    expect((await getDb().review.findUniqueOrThrow({ where: { id: reviewId } })).status).toBe("pending");

    const rejected = await trpc(
      "mutation",
      "reviews.reject",
      { reviewId, reason: "  Advertising, not documentation.  " },
      { cookie },
    );
    expect(rejected.body.result.data.review).toMatchObject({
      status: "rejected",
      rejectionReason: "Advertising, not documentation.",
    });
    const listed = await trpc("query", "reviews.list", { status: "rejected" }, { cookie });
    expect(listed.body.result.data.reviews).toEqual([
      expect.objectContaining({ id: reviewId, rejectionReason: "Advertising, not documentation." }),
    ]);
    const plain = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key: tenant.orgKey.secret,
      body: { title: "Other" },
    });
    const noReason = await trpc(
      "mutation",
      "reviews.reject",
      { reviewId: reviewIdOf(plain.body.reviewPath) },
      { cookie },
    );
    expect(noReason.body.result.data.review.rejectionReason).toBeNull();
  });

  it("marks a pending edit whose page changed since the proposal, and only that one", async () => {
    const { tenant, kbId } = await reviewing();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const changed = await livePage(cookie, kbId, "alpha beta");
    const untouched = await livePage(cookie, kbId, "gamma delta");
    const edits = [];
    for (const [pageId, oldString] of [
      [changed, "beta"],
      [untouched, "delta"],
    ] as const) {
      edits.push(
        await api("PATCH", `/knowledgebases/${kbId}/pages/${pageId}`, {
          key: tenant.orgKey.secret,
          body: { patch: [{ op: "replace", oldString, newString: "NEW" }] },
        }),
      );
    }
    await trpc(
      "mutation",
      "knowledge.savePage",
      { knowledgebaseId: kbId, pageId: changed, markdown: "alpha beta, edited by hand" },
      { cookie },
    );
    const list = (await trpc("query", "reviews.list", { status: "pending" }, { cookie })).body.result.data.reviews;
    expect(list.find((r: { pageId: string }) => r.pageId === changed).pageChanged).toBe(true);
    expect(list.find((r: { pageId: string }) => r.pageId === untouched).pageChanged).toBe(false);
  });

  it("keeps the author filter on every page of the list", async () => {
    const { tenant, kbId } = await reviewing();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    await api("POST", `/knowledgebases/${kbId}/pages`, { key: tenant.orgKey.secret, body: { title: "Org key first" } });
    await api("POST", `/knowledgebases/${kbId}/pages`, {
      key: tenant.personalKey.secret,
      body: { title: "Owner's key between" },
    });
    await api("POST", `/knowledgebases/${kbId}/sources`, {
      key: tenant.orgKey.secret,
      body: { contentText: "a document" },
    });
    const kinds: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const input = { status: "pending", authorId: tenant.orgKey.id, limit: 1, ...(cursor ? { cursor } : {}) };
      const response = await trpc("query", "reviews.list", input, { cookie });
      const data: { reviews: { kind: string }[]; nextCursor: string | null } = response.body.result.data;
      kinds.push(...data.reviews.map((r) => r.kind));
      cursor = data.nextCursor;
      if (!cursor) break;
    }
    expect(kinds).toEqual(["page_create", "source"]);
  });

  it("filters by kind and by author, and lists the authors with their counts", async () => {
    const { tenant, kbId } = await reviewing();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    await api("POST", `/knowledgebases/${kbId}/pages`, {
      key: tenant.personalKey.secret,
      body: { title: "By the owner's key" },
    });
    await api("POST", `/knowledgebases/${kbId}/pages`, {
      key: tenant.orgKey.secret,
      body: { title: "By the org key" },
    });
    await api("POST", `/knowledgebases/${kbId}/sources`, {
      key: tenant.orgKey.secret,
      body: { contentText: "a document" },
    });
    const titles = async (input: object) =>
      (await trpc("query", "reviews.list", { status: "pending", ...input }, { cookie })).body.result.data.reviews
        .map((r: { kind: string; title: string }) => r.kind)
        .sort();
    expect(await titles({ kind: "source" })).toEqual(["source"]);
    expect(await titles({ authorId: tenant.owner.member.id })).toEqual(["page_create"]);
    expect(await titles({ authorId: tenant.orgKey.id })).toEqual(["page_create", "source"]);
    expect(await titles({ authorId: tenant.orgKey.id, kind: "page_create" })).toEqual(["page_create"]);
    const authors = (await trpc("query", "reviews.authors", { status: "pending" }, { cookie })).body.result.data
      .authors;
    expect(authors).toEqual(
      expect.arrayContaining([
        { authorId: tenant.owner.member.id, name: tenant.owner.email, count: 1 },
        { authorId: tenant.orgKey.id, name: expect.any(String), count: 2 },
      ]),
    );
    expect(authors).toHaveLength(2);
  });

  it("approves in bulk, each on its own: the failures are reported and change nothing, the rest apply", async () => {
    const { tenant, kbId } = await reviewing();
    const key = tenant.orgKey.secret;
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const stale = await livePage(cookie, kbId, "alpha beta");
    const fine = await livePage(cookie, kbId, "gamma delta");
    const staleEdit = await api("PATCH", `/knowledgebases/${kbId}/pages/${stale}`, {
      key,
      body: { patch: [{ op: "replace", oldString: "beta", newString: "B" }] },
    });
    const fineEdit = await api("PATCH", `/knowledgebases/${kbId}/pages/${fine}`, {
      key,
      body: { patch: [{ op: "replace", oldString: "delta", newString: "D" }] },
    });
    const created = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key,
      body: { title: "New", markdown: "fresh" },
    });
    await trpc(
      "mutation",
      "knowledge.savePage",
      { knowledgebaseId: kbId, pageId: stale, markdown: "alpha gamma" },
      { cookie },
    );
    const other = await reviewing();
    const foreign = await api("POST", `/knowledgebases/${other.kbId}/pages`, {
      key: other.tenant.orgKey.secret,
      body: { title: "Theirs", markdown: "theirs" },
    });

    const ids = [staleEdit, fineEdit, created, foreign].map((r) => reviewIdOf(r.body.reviewPath));
    const result = await trpc("mutation", "reviews.approveMany", { reviewIds: ids }, { cookie });
    expect(result.status).toBe(200);
    const { approved, failed } = result.body.result.data;
    expect(approved.map((r: { id: string }) => r.id).sort()).toEqual([ids[1], ids[2]].sort());
    expect(failed).toEqual([
      { reviewId: ids[0], code: "conflict", message: expect.stringMatching(/changed since this edit was proposed/) },
      { reviewId: ids[3], code: "not_found", message: expect.any(String) },
    ]);
    expect(await pageMarkdown(key, kbId, stale)).toBe("alpha gamma");
    expect(await pageMarkdown(key, kbId, fine)).toBe("gamma D");
    expect(await pageMarkdown(key, kbId, created.body.page.id)).toBe("fresh");
    expect((await getDb().review.findUniqueOrThrow({ where: { id: ids[0] } })).status).toBe("pending");
    expect((await getDb().review.findUniqueOrThrow({ where: { id: ids[3] } })).status).toBe("pending");
    expect(await pageMarkdown(other.tenant.orgKey.secret, other.kbId, foreign.body.page.id)).toBe("");
  });

  it("refuses bulk approval to members and to more than 100 reviews, deciding nothing", async () => {
    const { tenant, kbId } = await reviewing();
    const created = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key: tenant.orgKey.secret,
      body: { title: "x", markdown: "y" },
    });
    const reviewId = reviewIdOf(created.body.reviewPath);
    const member = await addPerson(tenant.operator, "member");
    const memberCookie = await signInCookie(member.email, member.password);
    expect(
      trpcErrorCode(await trpc("mutation", "reviews.approveMany", { reviewIds: [reviewId] }, { cookie: memberCookie })),
    ).toBe("forbidden_role");
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const tooMany = await trpc(
      "mutation",
      "reviews.approveMany",
      { reviewIds: Array.from({ length: 101 }, () => reviewId) },
      { cookie },
    );
    expect(trpcErrorCode(tooMany)).toBe("invalid_request");
    expect((await getDb().review.findUniqueOrThrow({ where: { id: reviewId } })).status).toBe("pending");
  });
});

const root = path.resolve(import.meta.dirname, "../..");
function cli(...args: string[]): Promise<{ code: number; json: any }> {
  return new Promise((resolve) => {
    execFile(
      path.join(root, "node_modules", ".bin", "tsx"),
      ["src/cli/admin.ts", ...args],
      { cwd: root, env: process.env, timeout: 30_000 },
      (error, stdout) => {
        resolve({ code: error ? Number(error.code) : 0, json: JSON.parse(stdout) });
      },
    );
  });
}

describe("admin CLI review commands", () => {
  it("lists, approves and rejects", async () => {
    const { tenant, kbId } = await reviewing();
    const key = tenant.orgKey.secret;
    const pageId = await (async () => {
      const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
      return (
        await trpc(
          "mutation",
          "knowledge.createPage",
          { knowledgebaseId: kbId, title: "P", markdown: "old" },
          { cookie },
        )
      ).body.result.data.page.id;
    })();
    const edit = await api("PATCH", `/knowledgebases/${kbId}/pages/${pageId}`, {
      key,
      body: { patch: [{ op: "replace", oldString: "old", newString: "new" }] },
    });
    const spam = await api("POST", `/knowledgebases/${kbId}/pages`, { key, body: { title: "Spam" } });
    const list = await cli("review", "list", "--org", tenant.organization.id);
    const [approve, reject] = await Promise.all([
      cli("review", "approve", "--id", reviewIdOf(edit.body.reviewPath)),
      cli("review", "reject", "--id", reviewIdOf(spam.body.reviewPath), "--reason", "spam"),
    ]);
    expect(list.code).toBe(0);
    expect(list.json.reviews.map((r: { kind: string }) => r.kind).sort()).toEqual(["page_create", "page_edit"]);
    expect(approve.json.review).toMatchObject({ status: "approved", decidedBy: "operator" });
    expect(reject.json.review).toMatchObject({ status: "rejected", rejectionReason: "spam" });
    expect(await pageMarkdown(key, kbId, pageId)).toBe("new");
    const missing = await cli("review", "approve", "--id", "00000000-0000-4000-8000-000000000000");
    expect(missing.code).toBe(1);
    expect(missing.json.error.code).toBe("not_found");
  });
});
