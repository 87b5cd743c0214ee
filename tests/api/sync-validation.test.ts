// Every procedure of the three tRPC doors checks its input and output with zod's synchronous,
// compiled parser (src/server/trpc/sync-validation.ts), and a refusal still reads as before.
import { describe, expect, it } from "vitest";
import { Knowledgebase } from "@/schemas/knowledge/knowledgebase";
import { validatesSynchronously } from "@/server/trpc/sync-validation";
import { portalRouter } from "@/server/trpc/portal-root";
import { appRouter } from "@/server/trpc/root";
import { api, newOrganization } from "../helpers";

type ProcedureDef = { _def: { inputs: unknown[]; output?: unknown } };

describe("synchronous validation of procedures", () => {
  it("covers every input and output schema of the console, REST, MCP and portal procedures", () => {
    for (const router of [appRouter, portalRouter]) {
      const procedures = Object.entries(router._def.procedures as unknown as Record<string, ProcedureDef>);
      expect(procedures.length).toBeGreaterThan(0);
      for (const [name, procedure] of procedures) {
        for (const schema of [...procedure._def.inputs, ...(procedure._def.output ? [procedure._def.output] : [])]) {
          expect({ name, synchronous: validatesSynchronously(schema) }).toEqual({ name, synchronous: true });
        }
      }
    }
  });

  it("refuses a bad input with the field named, and parses an answer asynchronously to the same value", async () => {
    const { orgKey } = await newOrganization();
    const refused = await api("POST", "/knowledgebases", { key: orgKey.secret, body: { name: 42 } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("invalid_request");
    expect(JSON.stringify(refused.body.error)).toContain("name");
    const detail = {
      id: "5063d021-44b0-4606-b0f6-87f0f8546175",
      name: "N",
      description: "",
      language: "simple",
      searchMode: "auto",
      rerank: false,
      createdAt: "2026-11-24T05:10:20.123Z",
      updatedAt: "2026-11-24T05:10:20.123Z",
      counts: { sources: 0, pages: 0 },
      sources: [],
      pages: [],
      crawls: [],
      extra: 1,
    };
    await expect(Knowledgebase.parseAsync(detail)).resolves.toEqual(Knowledgebase.parse(detail));
    await expect(Knowledgebase.parseAsync({ ...detail, id: "nope" })).rejects.toThrow(/uuid|UUID/);
  });
});
