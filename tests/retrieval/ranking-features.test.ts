// The lexical ranking's features (issue 34), each on constructed documents where it must change
// the order: passage length normalisation and the document's opening passage. Their weights were
// tuned on the evaluation sets' tuning halves (BENCHMARKS.md).
import { describe, expect, it } from "vitest";
import { api } from "../helpers";
import { drain, tenantWithKnowledgebase } from "../knowledge-helpers";

async function addDocument(key: string, kbId: string, name: string, markdown: string): Promise<void> {
  const response = await api("POST", `/knowledgebases/${kbId}/sources`, {
    key,
    body: { name, contentMarkdown: markdown },
  });
  expect(response.status).toBe(202);
}

async function searchTitles(key: string, kbId: string, query: string): Promise<string[]> {
  const response = await api("POST", `/knowledgebases/${kbId}/search`, {
    key,
    body: { query, kinds: ["sources"] },
  });
  expect(response.status).toBe(200);
  return response.body.results.map((result: { title: string }) => result.title);
}

/** Sentences that share no word with the questions below: a passage's bulk. */
function filler(sentences: number): string {
  const lines = [
    "The weather station on the hill records wind and rain every hour.",
    "Volunteers paint the fence of the community garden each spring.",
    "The library lends bicycles to anyone with a card.",
    "Our choir rehearses on Thursday evenings in the old school hall.",
  ];
  return Array.from({ length: sentences }, (_, i) => lines[i % lines.length]).join(" ");
}

describe("lexical ranking features", () => {
  it("ranks a short passage answering most of the question above a long one that mentions every word in passing", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    await addDocument(
      key,
      kbId,
      "Almanac",
      `# Almanac\n\n## Notes\n\n${filler(3)} A renewal of sorts. ${filler(4)} Certificate of merit. ${filler(3)} Reminder: hours.`,
    );
    await addDocument(key, kbId, "Bulletin", "# Bulletin\n\n## Notes\n\nRenewal of a certificate.");
    for (let i = 0; i < 4; i++)
      await addDocument(key, kbId, `Memo ${i}`, `# Memo ${i}\n\n## Notes\n\nA reminder (${i}).`);
    await drain();
    const titles = await searchTitles(key, kbId, "certificate renewal reminder");
    expect(titles.slice(0, 2)).toEqual(["Bulletin", "Almanac"]);
  });

  it("ranks a document whose opening says it is about the question above one that only mentions it deeper down", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    await addDocument(
      key,
      kbId,
      "logpack",
      `# logpack\n\n## Name\n\nlogpack - compress old log files\n\n## Usage\n\n${filler(6)} It compresses the log files it finds.`,
    );
    await addDocument(
      key,
      kbId,
      "stationd",
      `# stationd\n\n## Name\n\nstationd - the weather station daemon\n\n## Usage\n\n${filler(6)} It can compress its old log files nightly.`,
    );
    await drain();
    const titles = await searchTitles(key, kbId, "compress old log files nightly");
    expect(titles.slice(0, 2)).toEqual(["logpack", "stationd"]);
  });
});
