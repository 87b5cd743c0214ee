// The builder's part of the OpenAPI document: every path, the success statuses, the error codes
// each operation can answer, the If-Unmodified-Since header and the node types.
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { api } from "../helpers";

describe("builder endpoints in the OpenAPI document", () => {
  it("documents every endpoint of the three kinds, with 201 on create, 204 on delete and rollback", async () => {
    // Error responses are shared components ($ref); read them resolved.
    const body: any = await SwaggerParser.dereference((await api("GET", "/openapi.json")).body);
    for (const [kind, id] of [
      ["agents", "agentId"],
      ["flows", "flowId"],
      ["apps", "appId"],
    ] as const) {
      const item = `/${kind}/{${id}}`;
      expect(body.paths[`/${kind}`].post.responses["201"]).toBeTruthy();
      expect(body.paths[`/${kind}`].get.parameters.map((p: { name: string }) => p.name)).toEqual(
        expect.arrayContaining(["include", "limit", "cursor", "fields", "updatedSince"]),
      );
      expect(body.paths[item].get.responses["404"].description).toContain("not_found");
      expect(body.paths[item].delete.responses["204"]).toBeTruthy();
      expect(body.paths[`${item}/draft`].get).toBeTruthy();
      const patch = body.paths[`${item}/draft`].patch;
      expect(patch.responses["409"].description).toContain("conflict");
      expect(patch.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toContain(
        "header:If-Unmodified-Since",
      );
      expect(body.paths[`${item}/publish`].post).toBeTruthy();
      expect(body.paths[`${item}/versions`].get).toBeTruthy();
      const deploy = body.paths[`${item}/versions/{versionId}/deploy`].post;
      expect(deploy.summary).toMatch(/rollback/i);
    }
    expect(body.paths["/agents/{agentId}/draft"].patch.responses["422"].description).toContain("invalid_model");
    expect(body.paths["/flows/{flowId}/draft"].patch.responses["422"].description).toContain("invalid_workflow");
    expect(body.paths["/apps/{appId}/publish"].post.responses["422"].description).toContain("unpublished_dependencies");
    expect(JSON.stringify(body.paths["/apps/{appId}/draft"].patch)).toContain("sequential");
  });
});
