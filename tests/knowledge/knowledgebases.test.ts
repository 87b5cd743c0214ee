// Knowledgebases: list, create with the plan cap, detail with the page index, end users' notebooks.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, newOrganization } from "../helpers";
import { newKnowledgebase, newPage, sourceOf, tenantWithKnowledgebase, upload } from "../knowledge-helpers";

describe("knowledgebases", () => {
  it("creates (201), lists with pagination and shows the detail with counts", async () => {
    const tenant = await newOrganization();
    const first = await newKnowledgebase(tenant, "One");
    const second = await newKnowledgebase(tenant, "Two");
    const page1 = await api("GET", "/knowledgebases?limit=1", { key: tenant.orgKey.secret });
    expect(page1.status).toBe(200);
    expect(page1.body.knowledgebases.map((k: { id: string }) => k.id)).toEqual([first]);
    const page2 = await api("GET", `/knowledgebases?limit=1&cursor=${page1.body.nextCursor}`, {
      key: tenant.orgKey.secret,
    });
    expect(page2.body.knowledgebases.map((k: { id: string }) => k.id)).toEqual([second]);
    expect(page2.body.nextCursor).toBeNull();

    const detail = await api("GET", `/knowledgebases/${first}`, { key: tenant.orgKey.secret });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: first,
      name: "One",
      description: "",
      counts: { sources: 0, pages: 0 },
      sources: [],
      pages: [],
    });
  });

  it("refuses a knowledgebase over the plan cap with plan_limit, limit and used; nothing created", async () => {
    const tenant = await newOrganization({ settings: { maxKnowledgebases: 1 } });
    await newKnowledgebase(tenant);
    const response = await api("POST", "/knowledgebases", { key: tenant.orgKey.secret, body: { name: "Second" } });
    expect(response.status).toBe(403);
    expect(response.body.error).toMatchObject({ code: "plan_limit", limit: 1, used: 1 });
    expect(await getDb().knowledgebase.count({ where: { organizationId: tenant.organization.id } })).toBe(1);
  });

  it("answers not_found for an end user's notebook, another organization's knowledgebase and an unknown id", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const other = await newOrganization();
    const notebook = await getDb().knowledgebase.create({
      data: {
        organizationId: tenant.organization.id,
        name: "Notebook",
        endUserId: "00000000-0000-4000-8000-000000000001",
      },
    });
    for (const id of [notebook.id, "00000000-0000-4000-8000-000000000002"]) {
      const response = await api("GET", `/knowledgebases/${id}`, { key: tenant.orgKey.secret });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe("not_found");
    }
    expect((await api("GET", `/knowledgebases/${kbId}`, { key: other.orgKey.secret })).status).toBe(404);
    const list = await api("GET", "/knowledgebases", { key: tenant.orgKey.secret });
    expect(list.body.knowledgebases.map((k: { id: string }) => k.id)).toEqual([kbId]);
    const page = await api("POST", `/knowledgebases/${notebook.id}/pages`, {
      key: tenant.orgKey.secret,
      body: { title: "x" },
    });
    expect(page.status).toBe(404);
    expect(await getDb().page.count({ where: { knowledgebaseId: notebook.id } })).toBe(0);
  });

  it("lists the page index with folders, parents and paths", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const folder = await newPage(key, kbId, { title: "Guides", isFolder: true });
    const child = await newPage(key, kbId, {
      title: "Setup",
      parentPageId: folder,
      markdown: "# Setup",
      hook: "how to set up",
      templateKey: "guide",
    });
    const detail = await api("GET", `/knowledgebases/${kbId}`, { key });
    expect(detail.body.counts).toEqual({ sources: 0, pages: 2 });
    expect(detail.body.pages).toEqual([
      {
        id: folder,
        title: "Guides",
        templateKey: "",
        parentPageId: null,
        updatedAt: expect.any(String),
        hook: "",
        isFolder: true,
        path: ["Guides"],
      },
      {
        id: child,
        title: "Setup",
        templateKey: "guide",
        parentPageId: folder,
        updatedAt: expect.any(String),
        hook: "how to set up",
        isFolder: false,
        path: ["Guides", "Setup"],
      },
    ]);
  });

  it("shows each source and page in the detail as its own endpoint does, in the order they were created", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const sourceIds: string[] = [];
    for (const name of ["b-notes.md", "a-notes.md"])
      sourceIds.push((await upload(key, kbId, { name, type: "text/markdown", bytes: `# ${name}` })).body.source.id);
    const pageIds: string[] = [];
    for (const title of ["Zeta", "Alpha", "Mid"])
      pageIds.push(await newPage(key, kbId, { title, markdown: `# ${title}` }));

    const detail = await api("GET", `/knowledgebases/${kbId}`, { key });
    expect(detail.status).toBe(200);
    expect(detail.body.counts).toEqual({ sources: 2, pages: 3 });
    expect(detail.body.sources).toEqual(await Promise.all(sourceIds.map((id) => sourceOf(key, kbId, id))));
    const pages = await Promise.all(
      pageIds.map(async (id) => (await api("GET", `/knowledgebases/${kbId}/pages/${id}`, { key })).body),
    );
    expect(detail.body.pages.map((page: { id: string; updatedAt: string }) => [page.id, page.updatedAt])).toEqual(
      pages.map((page) => [page.id, page.updatedAt]),
    );
  });

  it("needs knowledge:read to read and knowledge:write to create", async () => {
    const tenant = await newOrganization();
    const { issueKey } = await import("../helpers");
    const reader = await issueKey(tenant.operator, { kind: "organization", scopes: ["knowledge:read"] });
    const response = await api("POST", "/knowledgebases", { key: reader.secret, body: { name: "x" } });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("insufficient_scope");
    expect(await getDb().knowledgebase.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
    const invalid = await api("POST", "/knowledgebases", {
      key: tenant.orgKey.secret,
      body: { name: "x", color: "red" },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe("invalid_request");
  });
});
