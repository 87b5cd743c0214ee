// The REST door's bridge to trpc-to-openapi (src/server/adapters/rest.ts): what the door relies
// on from the library, pinned so that an upgrade that changes it fails here first — path
// parameters and query strings reach the procedure coerced to its input, the status the
// procedure sets is the response's, a service's AppError and an input error come out in the
// product's envelope (not the library's body), a JSON body's values are taken as typed (the
// library's coercion is for query strings), and a HEAD answers without a body.
import { describe, expect, it } from "vitest";
import { api, newOrganization } from "../helpers";

describe("REST bridge over trpc-to-openapi", () => {
  it("passes path parameters and the JSON body, and answers with the status the procedure sets", async () => {
    const { orgKey } = await newOrganization();
    const created = await api("POST", "/knowledgebases", { key: orgKey.secret, body: { name: "Bridge" } });
    expect(created.status).toBe(201);
    const id: string = created.body.knowledgebase.id;
    const read = await api("GET", `/knowledgebases/${id}`, { key: orgKey.secret });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, name: "Bridge", counts: { sources: 0, pages: 0 } });
  });

  it("coerces query strings to the input's types (limit as a number)", async () => {
    const { orgKey } = await newOrganization();
    for (const name of ["One", "Two", "Three"])
      await api("POST", "/knowledgebases", { key: orgKey.secret, body: { name } });
    const page = await api("GET", "/knowledgebases?limit=2", { key: orgKey.secret });
    expect(page.status).toBe(200);
    expect(page.body.knowledgebases).toHaveLength(2);
    expect(page.body.nextCursor).toEqual(expect.any(String));
    const refused = await api("GET", "/knowledgebases?limit=abc", { key: orgKey.secret });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("invalid_request");
  });

  it("answers a service's AppError in the product's envelope with its own status", async () => {
    const { orgKey } = await newOrganization();
    const response = await api("GET", "/knowledgebases/00000000-0000-4000-8000-000000000000", { key: orgKey.secret });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: expect.objectContaining({ code: "not_found", message: expect.any(String) }),
    });
    expect(response.body.error).not.toHaveProperty("issues");
    expect(response.headers.get("x-request-id")).toBeTruthy();
  });

  it("answers an input that fails validation 400 invalid_request, writing nothing", async () => {
    const { orgKey } = await newOrganization();
    const response = await api("POST", "/knowledgebases", { key: orgKey.secret, body: { name: 42 } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_request");
    expect((await api("GET", "/knowledgebases", { key: orgKey.secret })).body.knowledgebases).toEqual([]);
  });

  it("takes a JSON body's values as typed: a string is neither a boolean nor a number", async () => {
    const { orgKey } = await newOrganization();
    const kb = await api("POST", "/knowledgebases", { key: orgKey.secret, body: { name: "Typed" } });
    const kbId: string = kb.body.knowledgebase.id;
    // Coerced, "false" would read as true and make a folder; null would read as false.
    for (const isFolder of ["false", "no", null, 0]) {
      const page = await api("POST", `/knowledgebases/${kbId}/pages`, {
        key: orgKey.secret,
        body: { title: "Notes", isFolder },
      });
      expect(page.status, JSON.stringify(isFolder)).toBe(400);
      expect(page.body.error.code).toBe("invalid_request");
    }
    for (const limit of ["3", null, true]) {
      const search = await api("POST", `/knowledgebases/${kbId}/search`, {
        key: orgKey.secret,
        body: { query: "anything", limit },
      });
      expect(search.status, JSON.stringify(limit)).toBe(400);
      expect(search.body.error.code).toBe("invalid_request");
    }
    const read = await api("GET", `/knowledgebases/${kbId}`, { key: orgKey.secret });
    expect(read.body.counts.pages).toBe(0);
    // The same schemas serve the console's door: a REST request must not have changed them.
    const typed = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key: orgKey.secret,
      body: { title: "Notes", isFolder: false },
    });
    expect(typed.status).toBe(201);
    const page = await api("GET", `/knowledgebases/${kbId}/pages/${typed.body.page.id}`, { key: orgKey.secret });
    expect(page.body).toMatchObject({ title: "Notes", isFolder: false });
  });

  it("answers HEAD as GET without a body", async () => {
    const { orgKey } = await newOrganization();
    const response = await api("HEAD", "/models", { key: orgKey.secret });
    expect(response.status).toBe(200);
    expect(response.text).toBe("");
  });
});
