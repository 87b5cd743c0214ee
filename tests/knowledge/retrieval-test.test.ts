// The console's retrieval test: what an agent with this knowledgebase would receive for a
// question, pages and indexed sources alike, never another organization's.
import { describe, expect, it } from "vitest";
import { api, signInCookie, trpc, trpcErrorCode } from "../helpers";
import { drain, newPage, tenantWithKnowledgebase } from "../knowledge-helpers";

describe("retrieval test", () => {
  it("answers the passages of pages and ready sources that match the question", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    await newPage(key, kbId, { title: "Refunds", markdown: "Refunds are paid within 14 days." });
    await newPage(key, kbId, { title: "Parking", markdown: "Park behind the building." });
    await api("POST", `/knowledgebases/${kbId}/sources`, {
      key,
      body: { name: "Refund form", contentText: "Send the refund form to billing." },
    });
    await drain();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const answer = await trpc(
      "query",
      "knowledge.testRetrieval",
      { knowledgebaseId: kbId, question: "How do refunds work?" },
      { cookie },
    );
    expect(answer.status).toBe(200);
    const titles = answer.body.result.data.passages.map((p: { title: string }) => p.title).sort();
    expect(titles).toEqual(["Refund form", "Refunds"]);
    expect(answer.body.result.data.passages.find((p: { title: string }) => p.title === "Refunds").text).toContain(
      "14 days",
    );
  });

  it("finds nothing in another organization's knowledgebase: not_found", async () => {
    const mine = await tenantWithKnowledgebase();
    const theirs = await tenantWithKnowledgebase();
    await newPage(theirs.tenant.orgKey.secret, theirs.kbId, { title: "Secret", markdown: "The vault code is K1234Q." });
    const cookie = await signInCookie(mine.tenant.owner.email, mine.tenant.owner.password);
    const answer = await trpc(
      "query",
      "knowledge.testRetrieval",
      { knowledgebaseId: theirs.kbId, question: "vault code" },
      { cookie },
    );
    expect(trpcErrorCode(answer)).toBe("not_found");
    expect(JSON.stringify(answer.body)).not.toContain("K1234Q");
  });
});
