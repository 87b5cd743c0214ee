// DOCX, PPTX, XLSX and HTML as sources, from files made here: tables kept as markdown tables,
// headings as headings, sheets and slides as sections, the type known by the zip's entries (not
// the name), and a phrase in a table cell found by search.
import http from "node:http";
import type { AddressInfo } from "node:net";
import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { extractText, typeOfBytes, typeOfFile } from "@/server/jobs/extract";
import { extractInChildProcess } from "@/server/jobs/extraction-process";
import { drainIndexJobs } from "@/server/jobs/indexing";
import { pptxToMarkdown } from "@/server/jobs/office";
import { api } from "../helpers";
import { sourceOf, tenantWithKnowledgebase, upload } from "../knowledge-helpers";
import { docx, pptx, xlsx } from "../office-fixtures";

const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

const pricingHtml = `<html><head><title>Pricing</title></head><body><nav>Home Pricing Contact</nav>
  <article><h1>Pricing plans</h1><p>Every plan includes support by email and the knowledge base for your whole team.</p>
  <h2>Plans</h2>
  <table><thead><tr><th>Plan</th><th>Seats</th></tr></thead>
  <tbody><tr><td>Starter</td><td>3</td></tr><tr><td>Heliotrope enterprise tier</td><td>unlimited</td></tr></tbody></table>
  <p>Prices are per month and exclude tax, which is added at checkout for every country we sell in.</p></article>
  <footer>footer links</footer></body></html>`;

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    if (request.url === "/pricing") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(pricingHtml);
    } else if (request.url === "/report") {
      // An office file served as a bare download: its type comes from its zip entries.
      void xlsx({
        Budget: [
          ["Line", "Amount"],
          ["Quokka grant", 1200],
        ],
      }).then((bytes) => {
        response.writeHead(200, { "content-type": "application/octet-stream" });
        response.end(Buffer.from(bytes));
      });
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function search(key: string, kbId: string, query: string) {
  const response = await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query, kinds: ["sources"] } });
  expect(response.status, response.text).toBe(200);
  return response.body.results as { id: string; heading: string; snippet: string }[];
}

describe("office files and HTML as sources", () => {
  it("indexes a DOCX, a PPTX, an XLSX and an HTML file; a phrase in a table cell is found by search", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const files = [
      {
        name: "handbook.docx",
        type: DOCX_TYPE,
        bytes: await docx([
          { heading: "Travel policy" },
          { paragraph: "Book trains for journeys under four hours." },
          { heading: "Allowances", level: 2 },
          {
            table: [
              ["City", "Daily allowance"],
              ["Lisbon", "Marzipan voucher of 40 euros"],
            ],
          },
        ]),
      },
      {
        name: "kickoff.pptx",
        type: "",
        bytes: await pptx([
          { title: "Roadmap", bullets: ["Ship the mobile app", "Open the Berlin office"] },
          {
            title: "Owners",
            table: [
              ["Project", "Owner"],
              ["Periwinkle migration", "Dana"],
            ],
          },
        ]),
      },
      {
        name: "budget.xlsx",
        type: "",
        bytes: await xlsx({
          Travel: [
            ["Trip", "Cost"],
            ["Reykjavik offsite", 5400],
          ],
          Equipment: [
            ["Item", "Cost"],
            ["Tangerine standing desk", 650],
          ],
        }),
      },
      { name: "pricing.html", type: "text/html", bytes: pricingHtml },
    ];
    const ids: Record<string, string> = {};
    for (const file of files) {
      const response = await upload(key, kbId, file);
      expect(response.status, response.text).toBe(202);
      ids[file.name] = response.body.source.id;
    }
    await drainIndexJobs(getDb(), {}, 150_000);
    const rows = await getDb().source.findMany({ where: { knowledgebaseId: kbId }, orderBy: { name: "asc" } });
    expect(rows.map((row) => [row.name, row.type, row.status, row.errorMessage])).toEqual([
      ["budget.xlsx", "xlsx", "ready", null],
      ["handbook.docx", "docx", "ready", null],
      ["kickoff.pptx", "pptx", "ready", null],
      ["pricing.html", "html", "ready", null],
    ]);
    const text = Object.fromEntries(rows.map((row) => [row.name, row.text!]));
    expect(text["handbook.docx"]).toMatch(/^# Travel policy$/m);
    expect(text["handbook.docx"]).toMatch(/^## Allowances$/m);
    expect(text["handbook.docx"]).toContain(
      "| City | Daily allowance |\n| --- | --- |\n| Lisbon | Marzipan voucher of 40 euros |",
    );
    expect(text["kickoff.pptx"]).toMatch(/^# Slide 1: Roadmap$/m);
    expect(text["kickoff.pptx"]).toMatch(/^# Slide 2: Owners$/m);
    expect(text["kickoff.pptx"]).toContain("| Project | Owner |\n| --- | --- |\n| Periwinkle migration | Dana |");
    expect(text["kickoff.pptx"]!.indexOf("Berlin office")).toBeLessThan(text["kickoff.pptx"]!.indexOf("Slide 2"));
    expect(text["budget.xlsx"]).toMatch(/^# Travel$/m);
    expect(text["budget.xlsx"]).toMatch(/^# Equipment$/m);
    expect(text["budget.xlsx"]).toContain("| Item | Cost |\n| --- | --- |\n| Tangerine standing desk | 650 |");
    expect(text["pricing.html"]).toMatch(/^## Plans$/m);
    expect(text["pricing.html"]).toContain("| Heliotrope enterprise tier | unlimited |");

    for (const [phrase, file, heading] of [
      ["marzipan voucher", "handbook.docx", "Travel policy > Allowances"],
      ["periwinkle migration", "kickoff.pptx", "Slide 2: Owners"],
      ["tangerine standing desk", "budget.xlsx", "Equipment"],
      ["heliotrope enterprise", "pricing.html", "Plans"],
    ] as const) {
      const [first] = await search(key, kbId, phrase);
      expect({ phrase, id: first?.id, heading: first?.heading }).toEqual({ phrase, id: ids[file], heading });
    }
  }, 180_000);

  it("reads a deck's slides in the order it shows them, not the order its files were made in", async () => {
    // Made as Intro, Plan, Budget; then Budget moved to the front in PowerPoint.
    const deck = await pptx([{ title: "Intro" }, { title: "Plan" }, { title: "Budget" }], [2, 0, 1]);
    const text = await pptxToMarkdown(deck, 100_000);
    expect(text.split("\n").filter((line) => line.startsWith("# "))).toEqual([
      "# Slide 1: Budget",
      "# Slide 2: Intro",
      "# Slide 3: Plan",
    ]);
  });

  it("knows an office file by its zip entries, not its name; a zip that is none of them is refused", async () => {
    const word = await docx([{ paragraph: "Hello" }]);
    const sheet = await xlsx({ One: [["a"]] });
    const deck = await pptx([{ title: "One" }]);
    expect([typeOfBytes(word), typeOfBytes(sheet), typeOfBytes(deck)]).toEqual(["docx", "xlsx", "pptx"]);
    // Named as another format: the content decides.
    expect(typeOfFile("notes.xlsx", "", word)).toBe("docx");
    expect(typeOfFile("slides.bin", "application/octet-stream", deck)).toBe("pptx");
    const plainZip = new JSZip();
    plainZip.file("readme.txt", "not an office file");
    const other = await plainZip.generateAsync({ type: "uint8array" });
    expect(typeOfBytes(other)).toBeNull();
    expect(typeOfFile("report.docx", DOCX_TYPE, other)).toBeNull();
    expect(typeOfFile("report.docx", DOCX_TYPE, new TextEncoder().encode("plain text"))).toBeNull();

    const { tenant, kbId } = await tenantWithKnowledgebase();
    const refused = await upload(tenant.orgKey.secret, kbId, { name: "report.docx", type: DOCX_TYPE, bytes: other });
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 400, code: "invalid_request" });
    expect(await getDb().source.count({ where: { knowledgebaseId: kbId } })).toBe(0);
  }, 180_000);

  it("fetches an HTML page with a table and an office file served as octet-stream as URL sources", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const add = async (url: string) =>
      (await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { url } })).body.source.id as string;
    const page = await add(`${base}/pricing`);
    const report = await add(`${base}/report`);
    await drainIndexJobs(getDb(), { fetchLimits: { allow: [new URL(base).host] } }, 150_000);
    expect(await sourceOf(key, kbId, page)).toMatchObject({ status: "ready", type: "html" });
    expect(await sourceOf(key, kbId, report)).toMatchObject({ status: "ready", type: "xlsx" });
    const [hit] = await search(key, kbId, "heliotrope enterprise tier");
    expect(hit?.id).toBe(page);
    const [budget] = await search(key, kbId, "quokka grant");
    expect(budget?.id).toBe(report);
  }, 180_000);

  it("fails a damaged office file, and one over the output bound, with a plain reason in the child", async () => {
    const word = await docx([{ paragraph: "fine" }]);
    const truncated = word.slice(0, Math.floor(word.byteLength / 2));
    const damaged = await extractInChildProcess({ kind: "bytes", type: "docx", bytes: truncated });
    expect(damaged).toMatchObject({ ok: false, message: expect.stringMatching(/DOCX could not be read/) });
    const long = await xlsx({ Big: Array.from({ length: 400 }, (_, i) => [`row ${i}`, "x".repeat(40)]) });
    const over = await extractInChildProcess({ kind: "bytes", type: "xlsx", bytes: long }, { maxChars: 5_000 });
    expect(over).toMatchObject({ ok: false, message: expect.stringMatching(/spreadsheet's text exceeds the 5,000/) });
    await expect(extractText("pptx", word)).rejects.toThrow(/PowerPoint/);
    // A zip bomb's directory says what it inflates to: refused before anything is inflated.
    const bomb = new Uint8Array(word);
    const view = new DataView(bomb.buffer);
    for (let at = 0; at + 46 < bomb.byteLength; at++)
      if (view.getUint32(at, true) === 0x02014b50) view.setUint32(at + 24, 0xfffffff0, true);
    await expect(extractText("docx", bomb)).rejects.toThrow(/would inflate to more than 200 MB/);
  }, 180_000);
});
