// The lexical ranking's features (issue 34), each on constructed documents where it must change
// the order: passage length normalisation, the document's opening passage and synonyms of the
// question's words (english knowledgebases only). Their weights were tuned on the evaluation sets'
// tuning halves (BENCHMARKS.md).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { retrieve } from "@/server/runtime/retrieval/retrieve";
import {
  lightWordsOf,
  MAX_SYNONYM_TERMS,
  QUESTION_INTENT_WORDS,
  synonymsOf,
  VOCABULARY_DEFAULTS,
  type VocabularyOptions,
} from "@/server/runtime/retrieval/vocabulary";
import { buildEverydayWords, EVERYDAY_WORDS_FILE } from "../../scripts/build-everyday-words";
import { buildThesaurus, THESAURUS_FILE } from "../../scripts/build-thesaurus";
import { api } from "../helpers";
import { drain, tenantWithKnowledgebase } from "../knowledge-helpers";

async function addDocument(key: string, kbId: string, name: string, markdown: string): Promise<void> {
  const response = await api("POST", `/knowledgebases/${kbId}/sources`, {
    key,
    body: { name, contentMarkdown: markdown },
  });
  expect(response.status).toBe(202);
}

async function addDocuments(key: string, kbId: string, documents: [string, string][]): Promise<void> {
  for (const [name, markdown] of documents) await addDocument(key, kbId, name, markdown);
}

async function searchTitles(key: string, kbId: string, query: string): Promise<string[]> {
  const response = await api("POST", `/knowledgebases/${kbId}/search`, {
    key,
    body: { query, kinds: ["sources"] },
  });
  expect(response.status).toBe(200);
  return response.body.results.map((result: { title: string }) => result.title);
}

/** The documents' titles the search API would return with these vocabulary options. */
async function titlesWith(organizationId: string, kbId: string, query: string, vocabulary: VocabularyOptions) {
  const hits = await retrieve(getDb(), organizationId, {
    knowledgebaseIds: [kbId],
    query,
    limit: 10,
    kinds: { pages: false, sources: true },
    onePerSource: true,
    vocabulary,
  });
  return hits.map((hit) => hit.title);
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

  it("ranks a passage answering the whole question above a one-line passage answering most of it", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    // A one-line passage (a manual page's NAME line) used to count 1.5 times its coverage.
    await addDocument(key, kbId, "Almanac", "## Notes\n\nRotate the signing key.");
    await addDocument(key, kbId, "Bulletin", `## Notes\n\nRotate the signing key weekly. ${filler(4)}`);
    for (let i = 0; i < 6; i++) await addDocument(key, kbId, `Memo ${i}`, `## Notes\n\nWe meet weekly (${i}).`);
    await drain();
    const titles = await searchTitles(key, kbId, "rotate the signing key weekly");
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
      `# stationd\n\n## Name\n\nstationd - the weather station daemon\n\n## Usage\n\n${filler(12)} It can compress its old log files nightly.`,
    );
    await drain();
    const titles = await searchTitles(key, kbId, "compress old log files nightly");
    expect(titles.slice(0, 2)).toEqual(["logpack", "stationd"]);
  });

  it("finds a document by a synonym of the question's word, below one that uses the word itself, in english only", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const documents: [string, string][] = [
      ["Exact", "# Exact\n\nEvery folder is listed with its owner."],
      ["Synonym", "# Synonym\n\nEvery directory is listed with its owner."],
      ["Listed", "# Listed\n\nEvery opening hour is listed on the notice board."],
    ];
    await addDocuments(key, kbId, documents);
    const simple = await api("POST", "/knowledgebases", {
      key,
      body: { name: "Several languages", language: "simple" },
    });
    expect(simple.status).toBe(201);
    const simpleId = simple.body.knowledgebase.id as string;
    await addDocuments(key, simpleId, documents);
    await drain();

    // "directory" stands for "folder" at a lower weight: above a passage without either, below the word itself.
    expect(await searchTitles(key, kbId, "folder listed")).toEqual(["Exact", "Synonym", "Listed"]);
    expect(await searchTitles(key, kbId, "folder")).toEqual(["Exact", "Synonym"]);
    // A knowledgebase in another language (here "simple") ranks the question's own words only.
    expect(await searchTitles(key, simpleId, "folder")).toEqual(["Exact"]);
  });

  it("widens a question from the software table and WordNet, at most MAX_SYNONYM_TERMS terms", async () => {
    const { words, synonyms } = await synonymsOf("My folders froze", VOCABULARY_DEFAULTS);
    expect(synonyms).toContain("directory");
    expect(synonyms).toContain("unresponsive");
    expect(words).toHaveLength(synonyms.length);
    const long = "screen folder printer password keyboard mouse battery network computer program ".repeat(5);
    expect((await synonymsOf(long, VOCABULARY_DEFAULTS)).synonyms.length).toBeLessThanOrEqual(MAX_SYNONYM_TERMS);
    expect((await synonymsOf("folder", { ...VOCABULARY_DEFAULTS, senses: 0 })).synonyms).toEqual([]);
  });

  it("widens a word the same way whatever question asked it before (its synonyms are kept per process)", async () => {
    // "directory" is one of "folder"'s synonyms, left out where the question says it itself.
    const alone = await synonymsOf("How do I delete a folder?", VOCABULARY_DEFAULTS);
    expect(alone.synonyms).toContain("directory");
    const both = await synonymsOf("delete the folder or directory", VOCABULARY_DEFAULTS);
    expect(both.synonyms).not.toContain("directory");
    expect(await synonymsOf("How do I delete a folder?", VOCABULARY_DEFAULTS)).toEqual(alone);
    expect(
      (await synonymsOf("How do I delete a folder?", { ...VOCABULARY_DEFAULTS, sources: "table" })).synonyms,
    ).not.toContain("booklet");
  });

  it("weighs a question-intent word like 'want' little when the question has other terms, in english only", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    // "want" is in one document only (rare: a high weight by rarity), "export" in two.
    const documents: [string, string][] = [
      ["Sheet A", "# Sheet A\n\nWant to print a report on paper?"],
      ["Sheet B", "# Sheet B\n\nExport a report as a spreadsheet."],
      ["Memo 1", "# Memo 1\n\nThe export office closes at five."],
      ["Memo 2", "# Memo 2\n\nThe canteen closes at six."],
      ["Memo 3", "# Memo 3\n\nThe car park closes at seven."],
    ];
    await addDocuments(key, kbId, documents);
    const simple = await api("POST", "/knowledgebases", {
      key,
      body: { name: "Several languages", language: "simple" },
    });
    expect(simple.status).toBe(201);
    const simpleId = simple.body.knowledgebase.id as string;
    await addDocuments(key, simpleId, documents);
    await drain();
    const question = "I want to export a report";
    const asAnyWord = await titlesWith(tenant.organization.id, kbId, question, {
      ...VOCABULARY_DEFAULTS,
      intentWeight: 1,
      everyday: null,
    });
    expect(asAnyWord.slice(0, 2)).toEqual(["Sheet A", "Sheet B"]);
    expect((await searchTitles(key, kbId, question)).slice(0, 2)).toEqual(["Sheet B", "Sheet A"]);
    // An intent word in another form is the same term, and weighs as little.
    expect((await searchTitles(key, kbId, "Wanting to export a report")).slice(0, 2)).toEqual(["Sheet B", "Sheet A"]);
    // A question of intent words alone finds by them; another language weighs every word alike.
    expect(await searchTitles(key, kbId, "want")).toEqual(["Sheet A"]);
    expect((await searchTitles(key, simpleId, question)).slice(0, 2)).toEqual(["Sheet A", "Sheet B"]);
  });

  it("weighs an everyday word of speech like 'every' or 'day' less the more common it is", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    // "every" and "day" are each in one document (rare here: high weights), "database" in two.
    const documents: [string, string][] = [
      ["Rota", "# Rota\n\nEvery day at noon."],
      ["Dumps", "# Dumps\n\nCopy the database with pg_dump."],
      ["Memo 1", "# Memo 1\n\nThe database office closes at five."],
      ["Memo 2", "# Memo 2\n\nThe canteen closes at six."],
      ["Memo 3", "# Memo 3\n\nThe car park closes at seven."],
    ];
    await addDocuments(key, kbId, documents);
    await drain();
    const question = "copy the database every day";
    const byRarityAlone = await titlesWith(tenant.organization.id, kbId, question, {
      ...VOCABULARY_DEFAULTS,
      everyday: null,
    });
    expect(byRarityAlone.slice(0, 2)).toEqual(["Rota", "Dumps"]);
    expect((await searchTitles(key, kbId, question)).slice(0, 2)).toEqual(["Dumps", "Rota"]);
    // A question of everyday words alone still finds by them.
    expect(await searchTitles(key, kbId, "every day")).toEqual(["Rota"]);
  });

  it("weighs a light word whose stem changes its second letter ('dying' is 'die') as light", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    // "dying" is in one document (rare: a high weight by rarity), "cactus" in two.
    const documents: [string, string][] = [
      ["Vigil", "# Vigil\n\nThe dying light of evening."],
      ["Repotting", "# Repotting\n\nRepot a cactus in spring."],
      ["Memo 1", "# Memo 1\n\nThe cactus office closes at five."],
      ["Memo 2", "# Memo 2\n\nThe canteen closes at six."],
      ["Memo 3", "# Memo 3\n\nThe car park closes at seven."],
    ];
    await addDocuments(key, kbId, documents);
    await drain();
    const question = "dying cactus";
    const byRarity = await titlesWith(tenant.organization.id, kbId, question, {
      ...VOCABULARY_DEFAULTS,
      everyday: null,
    });
    expect(byRarity[0]).toBe("Vigil");
    // "dying" (4.84 on the Zipf scale) is an everyday word only below the default threshold of 5.
    const everydayFromFour = { ...VOCABULARY_DEFAULTS, everyday: { from: 4.5, to: 5, floor: 0.3 } };
    const light = await titlesWith(tenant.organization.id, kbId, question, everydayFromFour);
    expect(light.indexOf("Vigil")).toBeGreaterThan(0);
  });

  it("gives a light word the share its commonness says, the least of its intent and everyday shares", () => {
    const { words, weights } = lightWordsOf("I want to back up the server every day", VOCABULARY_DEFAULTS);
    const share = Object.fromEntries(words.map((word, i) => [word, weights[i]]));
    // "every" is 5.75 on the Zipf scale: 1 − 0.75 × 0.7 of its rarity; "server" is no everyday word.
    expect(share.every).toBeCloseTo(0.475, 2);
    expect(share.want).toBe(0.3);
    expect(share.server).toBeUndefined();
    expect(lightWordsOf("every day", { ...VOCABULARY_DEFAULTS, everyday: null }).words).not.toContain("every");
  });

  it("stems only light words that begin as a term of the question, which loses none that is one", async () => {
    // The ranking statement stems a light word only when its first letter begins one of the
    // question's terms (lexical-sql.ts): sound because no english stem changes a word's first
    // letter. Its second, it can: "dying" is "die".
    // Every word that can be a light word: the intent words and the whole everyday list (a
    // vocabulary's `everyday.from` decides which of these a question's words may be).
    const zipf = JSON.parse(readFileSync("src/server/runtime/retrieval/everyday-words.json", "utf8")) as Record<
      string,
      number
    >;
    const words = [...QUESTION_INTENT_WORDS, ...Object.keys(zipf)];
    expect(words.length).toBeGreaterThan(1900);
    const { rows } = await getDb().pool.query<{ word: string; lexeme: string }>(
      `select w.word, l.lexeme from unnest($1::text[]) as w(word)
       cross join unnest(tsvector_to_array(to_tsvector('english', atrium_search_text(w.word)))) as l(lexeme)`,
      [words],
    );
    expect(rows.length).toBeGreaterThan(300);
    expect(rows.filter(({ word, lexeme }) => lexeme[0] !== word[0])).toEqual([]);
    expect(rows).toContainEqual({ word: "dying", lexeme: "die" });
  });

  it("finds a compound written as one word by its two words side by side", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    await addDocument(key, kbId, "Space", "# Space\n\nReport how full each file system is.");
    await addDocument(key, kbId, "Apart", "# Apart\n\nThe system keeps a file of every visitor.");
    await addDocument(key, kbId, "Other", "# Other\n\nThe car park closes at seven.");
    await drain();
    expect((await synonymsOf("filesystem", VOCABULARY_DEFAULTS)).synonyms).toContain("file system");
    expect(await searchTitles(key, kbId, "which filesystem is full")).toEqual(["Space"]);
    expect(await searchTitles(key, kbId, "filesystem")).toEqual(["Space"]);
  });

  it("finds a compound the question writes as two words and a document as one", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    await addDocument(key, kbId, "Settings", "## Server\n\nChange the timezone here.");
    await addDocument(key, kbId, "Hours", "## Opening\n\nOpening time is nine.");
    await addDocument(key, kbId, "Other", "## Parking\n\nThe car park closes at seven.");
    await drain();
    expect(await synonymsOf("change the time zone", VOCABULARY_DEFAULTS)).toMatchObject({
      words: expect.arrayContaining(["zone"]),
      synonyms: expect.arrayContaining(["timezone"]),
    });
    expect(await searchTitles(key, kbId, "change the time zone")).toEqual(["Settings", "Hours"]);
  });

  it("finds a document by the words of a name written with dots or slashes, which the text search keeps whole", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    await addDocument(
      key,
      kbId,
      "tar",
      "# tar\n\nThe tar program keeps many files in one archive and takes them out again.",
    );
    await addDocument(key, kbId, "fstab", "# fstab\n\nStatic information about the disks mounted at boot.");
    await addDocument(key, kbId, "Mirror", "# Mirror\n\nWhere to download a backup of the mirror.");
    await drain();
    expect(await searchTitles(key, kbId, "what is /etc/fstab for")).toEqual(["fstab"]);
    expect((await searchTitles(key, kbId, "unpack backup.tar.gz"))[0]).toBe("tar");
    expect(await synonymsOf("Unpack backup.tar.gz, then e.g. read /etc/fstab.", VOCABULARY_DEFAULTS)).toMatchObject({
      words: expect.arrayContaining(["backup.tar.gz", "/etc/fstab"]),
      synonyms: expect.arrayContaining(["backup", "tar", "gz", "etc", "fstab"]),
    });
    expect((await synonymsOf("e.g. v1.2", VOCABULARY_DEFAULTS)).words).toEqual([]);
  });

  it("keeps the committed everyday words what scripts/build-everyday-words.ts derives from SUBTLEX-US", () => {
    const committed = JSON.parse(readFileSync(EVERYDAY_WORDS_FILE, "utf8")) as Record<string, number>;
    expect(committed).toEqual(buildEverydayWords());
  });

  it("keeps the committed thesaurus what scripts/build-thesaurus.ts derives from WordNet", { timeout: 60_000 }, () => {
    const committed = JSON.parse(readFileSync(THESAURUS_FILE, "utf8")) as { lines: string };
    expect(committed.lines === buildThesaurus()).toBe(true);
  });
});
