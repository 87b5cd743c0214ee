// The OpenAPI document states the rules the server enforces on inputs: for each field below a
// JSON Schema validator (Ajv, 2020-12 with formats) reads the document's schema of the request,
// and the REST door gets the same request: it refuses what the document refuses and accepts what
// it accepts, for a few sample values each.
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { openApiDocument } from "@/server/openapi";
import { api, newOrganization, type Tenant } from "../helpers";
import { create, publish } from "../builder-helpers";
import { newKnowledgebase } from "../knowledge-helpers";
import { publishedApp } from "../runtime-helpers";

vi.hoisted(() => {
  // Webhook hosts must resolve when the endpoint is saved (a fact the document cannot state): the
  // accepted samples name this machine.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
  // Webhook secrets are sealed at rest like every stored credential.
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
});

const DOCUMENT_ID = "atrium-openapi";
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addSchema({ ...structuredClone(openApiDocument()), $id: DOCUMENT_ID } as never, DOCUMENT_ID);

const pointer = (...segments: string[]) =>
  `${DOCUMENT_ID}#/${segments.map((s) => s.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`;

function bodySchema(method: string, path: string): ValidateFunction {
  return ajv.getSchema(pointer("paths", path, method, "requestBody", "content", "application/json", "schema"))!;
}

function querySchema(method: string, path: string, name: string): ValidateFunction {
  const parameters = (openApiDocument().paths![path] as Record<string, { parameters: { name: string }[] }>)[method]!
    .parameters;
  const index = parameters.findIndex((parameter) => parameter.name === name);
  return ajv.getSchema(pointer("paths", path, method, "parameters", String(index), "schema"))!;
}

/** What the server said of a request: accepted (2xx) or refused as invalid_request. */
function verdict(response: { status: number; body: { error?: { code: string } } }): boolean {
  if (response.status >= 200 && response.status < 300) return true;
  expect({ status: response.status, code: response.body.error?.code }).toEqual({
    status: 400,
    code: "invalid_request",
  });
  return false;
}

let tenant: Tenant;
beforeAll(async () => {
  tenant = await newOrganization();
});

describe("the server refuses what the document refuses and accepts what it accepts", () => {
  it("an end user's email: the document's format and pattern are the server's rule", async () => {
    const validate = bodySchema("post", "/end-users");
    const samples = {
      "ada@example.com": true,
      "first.last+tag@mail.example.org": true,
      "o'neil@example.co": true,
      "a#b@example.com": false, // JSON Schema's `email` allows it; the server's rule does not
      "ada@localhost": false,
      "a..b@example.com": false,
      ".ada@example.com": false,
      "ada@example.c": false,
      "not-an-email": false,
      [`${"a".repeat(310)}@example.com`]: false, // over 320 characters
    };
    for (const [email, expected] of Object.entries(samples)) {
      const body = { email, fullName: "Sample" };
      expect(validate(body), `document: ${email}`).toBe(expected);
      expect(verdict(await api("POST", "/end-users", { key: tenant.orgKey.secret, body })), `server: ${email}`).toBe(
        expected,
      );
    }
  });

  it("a webhook endpoint's url: format uri and the http(s) pattern", async () => {
    const samples = {
      "https://127.0.0.1/atrium?team=1#x": true,
      "http://localhost:8080/in": true,
      "HTTP://LOCALHOST/": true,
      "ftp://hooks.example.com/in": false,
      "mailto:ops@example.com": false,
      "hooks.example.com/in": false,
      "https://hooks example.com/": false,
      "https://hooks.example.com/a b": false,
      "https://例え.jp/": false,
      "https://": false,
    };
    const validate = bodySchema("post", "/webhook-endpoints");
    for (const [url, expected] of Object.entries(samples)) {
      const body = { url, eventTypes: ["*"] };
      expect(validate(body), `document: ${url}`).toBe(expected);
      const response = await api("POST", "/webhook-endpoints", { key: tenant.orgKey.secret, body });
      expect(verdict(response), `server: ${url}`).toBe(expected);
    }
    const endpoint = (
      await api("POST", "/webhook-endpoints", {
        key: tenant.orgKey.secret,
        body: { url: "https://127.0.0.1/patched", eventTypes: ["*"] },
      })
    ).body.endpoint;
    const validatePatch = bodySchema("patch", "/webhook-endpoints/{id}");
    for (const [url, expected] of Object.entries(samples)) {
      expect(validatePatch({ url }), `document: ${url}`).toBe(expected);
      const response = await api("PATCH", `/webhook-endpoints/${endpoint.id}`, {
        key: tenant.orgKey.secret,
        body: { url },
      });
      expect(verdict(response), `server: PATCH ${url}`).toBe(expected);
    }
  });

  it("a list's fields: an enum of the names, written comma-separated", async () => {
    const key = tenant.orgKey.secret;
    await publish(key, "agents", (await create(key, "agents", { name: "Listed" })).id);
    const validate = querySchema("get", "/agents", "fields");
    const samples = {
      "id,name": true,
      model: true,
      "name,conversationStarters,questions": true,
      colour: false,
      "id,colour": false,
      "id,,name": false,
      "": false,
    };
    for (const [fields, expected] of Object.entries(samples)) {
      // style form, explode false: the array's items joined by commas.
      expect(validate(fields.split(",")), `document: ${fields}`).toBe(expected);
      const response = await api("GET", `/agents?fields=${encodeURIComponent(fields)}`, { key });
      expect(verdict(response), `server: ${fields}`).toBe(expected);
    }
    // Repeating the parameter is the same list.
    expect((await api("GET", "/agents?fields=name&fields=slug", { key })).body.agents[0]).toEqual({
      id: expect.any(String),
      name: "Listed",
      slug: expect.any(String),
    });
  });

  it("a source's JSON body: exactly one of contentMarkdown, contentText or url", async () => {
    const knowledgebaseId = await newKnowledgebase(tenant);
    const validate = bodySchema("post", "/knowledgebases/{knowledgebaseId}/sources");
    const samples: [Record<string, unknown>, boolean][] = [
      [{ contentMarkdown: "# Returns" }, true],
      [{ name: "Notes", contentText: "Plain words" }, true],
      [{ url: "https://docs.example.com/returns" }, true],
      [{}, false],
      [{ name: "Only a name" }, false],
      [{ contentMarkdown: "# A", contentText: "B" }, false],
      [{ contentText: "B", url: "https://docs.example.com/returns" }, false],
      [{ contentMarkdown: "" }, false],
      [{ url: "ftp://docs.example.com/returns" }, false],
    ];
    for (const [body, expected] of samples) {
      expect(validate(body), `document: ${JSON.stringify(body)}`).toBe(expected);
      const response = await api("POST", `/knowledgebases/${knowledgebaseId}/sources`, {
        key: tenant.orgKey.secret,
        body,
      });
      expect(verdict(response), `server: ${JSON.stringify(body)}`).toBe(expected);
    }
  });

  it("a conversation's message: minLength 1 and not only whitespace", async () => {
    const app = await publishedApp();
    const validate = bodySchema("post", "/apps/{appId}/conversation");
    const samples = { "How long do refunds take?": true, x: true, "": false, "   ": false, "\n\t": false };
    for (const [message, expected] of Object.entries(samples)) {
      expect(validate({ message }), `document: ${JSON.stringify(message)}`).toBe(expected);
      const response = await api("POST", `/apps/${app.appId}/conversation`, { key: app.key, body: { message } });
      expect(verdict(response), `server: ${JSON.stringify(message)}`).toBe(expected);
    }
  });
});
