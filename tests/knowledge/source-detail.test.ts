// The console's source view: the extracted text, the chunks with their heading paths, the
// indexing job while one is queued, clipped to bounds; another organization's source is not found.
import { describe, expect, it } from "vitest";
import { SOURCE_PREVIEW } from "@/schemas/knowledge/source";
import { api, newOrganization, signInCookie, trpc, trpcErrorCode } from "../helpers";
import { drain, tenantWithKnowledgebase } from "../knowledge-helpers";

describe("a source's detail in the console", () => {
  it("shows the queued job before indexing, then the text and chunks with their headings", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const filler = "Every refund is checked by a person before it is paid. ".repeat(500);
    const markdown = `# Guide\n\nWelcome to the guide.\n\n## Refunds\n\nRefunds are paid within 14 days.\n\n${filler}\n`;
    const sourceId = (
      await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { contentMarkdown: markdown, name: "Guide" } })
    ).body.source.id;

    const queued = await trpc("query", "knowledge.sourceDetail", { knowledgebaseId: kbId, sourceId }, { cookie });
    expect(queued.status).toBe(200);
    expect(queued.body.result.data).toMatchObject({
      source: { name: "Guide", status: "processing" },
      text: "",
      textChars: 0,
      chunkCount: 0,
      chunks: [],
      job: { status: "queued", attempts: 0 },
    });

    await drain();
    const ready = (await trpc("query", "knowledge.sourceDetail", { knowledgebaseId: kbId, sourceId }, { cookie })).body
      .result.data;
    expect(ready.source.status).toBe("ready");
    expect(ready.job).toBeNull();
    expect(ready.textChars).toBeGreaterThan(SOURCE_PREVIEW.textChars);
    expect(ready.text).toHaveLength(SOURCE_PREVIEW.textChars);
    expect(ready.text.startsWith("# Guide")).toBe(true);
    expect(ready.chunkCount).toBeGreaterThan(1);
    expect(ready.chunks.map((chunk: { position: number }) => chunk.position)).toEqual([
      ...Array(ready.chunks.length).keys(),
    ]);
    expect(ready.chunks.some((chunk: { heading: string }) => chunk.heading === "Guide > Refunds")).toBe(true);
    for (const chunk of ready.chunks) expect(chunk.text.length).toBeLessThanOrEqual(SOURCE_PREVIEW.chunkChars);
  });

  it("answers not_found for another organization's source and for a source of another knowledgebase", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const sourceId = (
      await api("POST", `/knowledgebases/${kbId}/sources`, {
        key: tenant.orgKey.secret,
        body: { contentText: "private notes" },
      })
    ).body.source.id;
    const otherKb = (await api("POST", "/knowledgebases", { key: tenant.orgKey.secret, body: { name: "Other" } })).body
      .knowledgebase.id;
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    expect(
      trpcErrorCode(await trpc("query", "knowledge.sourceDetail", { knowledgebaseId: otherKb, sourceId }, { cookie })),
    ).toBe("not_found");
    const outsider = await newOrganization();
    const outsiderCookie = await signInCookie(outsider.owner.email, outsider.owner.password);
    const refused = await trpc(
      "query",
      "knowledge.sourceDetail",
      { knowledgebaseId: kbId, sourceId },
      { cookie: outsiderCookie },
    );
    expect(refused.status).toBe(404);
    expect(trpcErrorCode(refused)).toBe("not_found");
  });
});
