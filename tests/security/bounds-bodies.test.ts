// A request body that is not a JSON object (issue 44): `null`, `42`, `[]` or `"x"` once read as
// `{}` (the path's ids alone), so `PATCH /user-groups/{id}` with `null` answered 200 and
// `POST /agents/{id}/publish` with `42` published a version. Every operation of the OpenAPI
// document that takes a body, or may take one, now answers 400 `invalid_request`, and nothing
// is written.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { create } from "../builder-helpers";
import { api, newOrganization, rotatingKey, type ApiResponse, type Tenant } from "../helpers";

const NOT_OBJECTS = ["null", "42", "[]", '"x"'];
const WRITE_METHODS = ["post", "put", "patch", "delete"];

let doc: any;
let tenant: Tenant;
let key: () => Promise<string>;

beforeAll(async () => {
  doc = (await api("GET", "/openapi.json")).body;
  tenant = await newOrganization();
  key = rotatingKey(tenant);
});

function expectNotAnObject(response: ApiResponse, body: string): void {
  expect({ status: response.status, code: response.body?.error?.code }, `${body}: ${response.text}`).toEqual({
    status: 400,
    code: "invalid_request",
  });
  expect(response.body.error.message).toContain("the body must be a JSON object");
}

describe("a body that is not a JSON object", () => {
  it("is 400 invalid_request on every operation that takes a body or may take one", async () => {
    const operations: [string, string][] = [];
    for (const [path, methods] of Object.entries<any>(doc.paths))
      for (const method of Object.keys(methods)) if (WRITE_METHODS.includes(method)) operations.push([method, path]);
    // Those with a body and those without one (deletes, revoke, cancel...) are both swept.
    expect(operations.filter(([method, path]) => doc.paths[path][method].requestBody).length).toBeGreaterThan(30);
    expect(operations.filter(([method, path]) => !doc.paths[path][method].requestBody).length).toBeGreaterThan(10);
    // Writes other than the sweep's fresh keys.
    const events = () =>
      getDb().auditEvent.count({
        where: { organizationId: tenant.organization.id, NOT: { action: { startsWith: "api_key." } } },
      });
    const before = await events();
    for (const [method, path] of operations) {
      const target = path.replace(/\{[^}]+\}/g, () => randomUUID());
      for (const rawBody of NOT_OBJECTS) {
        const response = await api(method.toUpperCase(), target, { key: await key(), rawBody });
        expectNotAnObject(response, `${method.toUpperCase()} ${path} ${rawBody}`);
      }
    }
    expect(await events()).toBe(before);
  });

  it("says what it got, and an empty body still reads as an object", async () => {
    const owner = await newOrganization();
    const response = await api("POST", "/user-groups", { key: owner.orgKey.secret, rawBody: '"x"' });
    expect(response.body.error.message).toBe("Invalid request: the body must be a JSON object, not a string.");
    const group = await api("POST", "/user-groups", { key: owner.orgKey.secret, body: { name: "Readers" } });
    const empty = await api("PATCH", `/user-groups/${group.body.userGroup.id}`, {
      key: owner.orgKey.secret,
      rawBody: "",
    });
    expect(empty.status).toBe(200);
  });

  it("changes nothing on the resources the issue named, and publishes no version", async () => {
    const owner = await newOrganization();
    const k = owner.orgKey.secret;
    const group = (await api("POST", "/user-groups", { key: k, body: { name: "Readers" } })).body.userGroup;
    const portal = (await api("POST", "/portals", { key: k, body: { name: "Help" } })).body.portal;
    const endUser = (await api("POST", "/end-users", { key: k, body: { email: `a-${randomUUID()}@example.com` } })).body
      .endUser;
    const kb = (await api("POST", "/knowledgebases", { key: k, body: { name: "Handbook" } })).body.knowledgebase;
    const agent = await create(k, "agents");
    const app = await create(k, "apps");
    const targets = [
      [`/user-groups/${group.id}`, `/user-groups/${group.id}`],
      [`/portals/${portal.id}`, `/portals/${portal.id}`],
      [`/end-users/${endUser.id}`, `/end-users/${endUser.id}`],
      [`/knowledgebases/${kb.id}`, `/knowledgebases/${kb.id}`],
      [`/agents/${agent.id}/draft`, `/agents/${agent.id}/draft`],
      [`/apps/${app.id}/draft`, `/apps/${app.id}/draft`],
    ];
    const read = async () => Promise.all(targets.map(async ([, get]) => (await api("GET", get!, { key: k })).body));
    const versions = async () => (await api("GET", `/agents/${agent.id}/versions`, { key: k })).body;
    const events = () => getDb().auditEvent.count({ where: { organizationId: owner.organization.id } });
    const [before, versionsBefore, eventsBefore] = [await read(), await versions(), await events()];
    for (const rawBody of NOT_OBJECTS) {
      for (const [patch] of targets) expectNotAnObject(await api("PATCH", patch!, { key: k, rawBody }), rawBody);
      expectNotAnObject(await api("POST", `/agents/${agent.id}/publish`, { key: k, rawBody }), rawBody);
    }
    expect(await read()).toEqual(before);
    expect(await versions()).toEqual(versionsBefore);
    expect(await events()).toBe(eventsBefore);
  });
});
