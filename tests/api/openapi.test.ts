// GET /api/v1/openapi.json: public, valid OpenAPI 3.1, and it documents the error envelope.
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { api } from "../helpers";

async function fetchDocument() {
  const response = await api("GET", "/openapi.json");
  expect(response.status).toBe(200);
  return response;
}

describe("GET /openapi.json", () => {
  it("is served without a key, as JSON, with X-Request-Id", async () => {
    const response = await fetchDocument();
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(response.body.openapi).toMatch(/^3\.1\./);
    expect(response.body.info.title).toBeTruthy();
  });

  it("is served even with a bad key (no auth)", async () => {
    expect((await api("GET", "/openapi.json", { key: "sk_org_nope" })).status).toBe(200);
  });

  it("is a valid OpenAPI document", async () => {
    const { body } = await fetchDocument();
    await expect(SwaggerParser.validate(structuredClone(body))).resolves.toBeTruthy();
  });

  it("documents GET /models with bearer auth and the error envelope on 401 and 429", async () => {
    const { body } = await fetchDocument();
    expect(body.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(body.components.schemas.ErrorEnvelope).toMatchObject({ type: "object", required: ["error"] });

    const operation = body.paths["/models"].get;
    expect(operation).toBeTruthy();
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "429", "500"]));
    for (const status of ["401", "429"]) {
      const schema = operation.responses[status].content["application/json"].schema;
      expect(JSON.stringify(schema)).toContain("#/components/schemas/ErrorEnvelope");
      expect(operation.responses[status].headers["X-Request-Id"]).toBeTruthy();
    }
    expect(operation.responses["429"].headers["Retry-After"]).toBeTruthy();
    expect(operation.responses["401"].description).toContain("invalid_api_key");
    expect(operation.responses["200"].headers).toMatchObject({ "RateLimit-Limit": expect.anything(), "RateLimit-Remaining": expect.anything(), "RateLimit-Reset": expect.anything() });
  });

  it("documents itself as needing no auth", async () => {
    const { body } = await fetchDocument();
    expect(body.paths["/openapi.json"].get.security).toEqual([]);
  });

  it("lists every error code in the envelope's code enum", async () => {
    const { ERROR_CODES } = await import("@/server/errors");
    const { body } = await fetchDocument();
    expect([...body.components.schemas.ErrorEnvelope.properties.error.properties.code.enum].sort()).toEqual([...ERROR_CODES].sort());
  });
});
