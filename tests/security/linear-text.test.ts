// Linear text processing (issue 25, item 2): every function that reads untrusted text (document
// text, page markdown and its links, patches' anchors, model and flow output, flow templates)
// finishes the inputs that used to take seconds to minutes well within a generous bound, and
// indexing a hostile document leaves this process free to answer other requests.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { GET as health } from "@/app/api/health/route";
import { getDb } from "@/server/db";
import { chunkMarkdown } from "@/server/jobs/chunking";
import { drainIndexJobs, INLINE_CHUNKING_MAX_BYTES } from "@/server/jobs/indexing";
import { jsonIn, jsonObjectIn } from "@/server/runtime/json-in-text";
import { render } from "@/server/runtime/templates";
import { parseLinks } from "@/server/services/knowledge/page-links";
import { applyPatch } from "@/server/services/knowledge/page-patches";
import { retrieve } from "@/server/runtime/retrieval/retrieve";
import { api } from "../helpers";
import { newPage, sourceOf, tenantWithKnowledgebase } from "../knowledge-helpers";

/** Generous: each of these inputs took seconds to minutes before, and takes milliseconds now. */
const BOUND_MS = 2_000;

function timed<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  return { value, ms: performance.now() - started };
}

function expectQuick<T>(work: () => T): T {
  const { value, ms } = timed(work);
  expect(ms).toBeLessThan(BOUND_MS);
  return value;
}

const spaced = (spaces: number) => `# a${" ".repeat(spaces)}b`;

describe("chunking", () => {
  it("reads a heading padded with 8,000 and 100,000 spaces at once (it took 94 s at 8,000)", () => {
    for (const spaces of [8_000, 100_000]) {
      const chunks = expectQuick(() => chunkMarkdown(spaced(spaces)));
      expect(chunks).toHaveLength(1);
      expect(chunks[0]!.heading).toMatch(/^a +b$/);
    }
  });

  it("reads other hostile shapes at once", () => {
    const shapes = [
      "#".repeat(100_000),
      `# ${"#".repeat(100_000)}`,
      `# a ${"# ".repeat(50_000)}x`,
      `# a${" ".repeat(50_000)}#${" ".repeat(50_000)}`,
      `${"# a \t".repeat(20_000)}\n`,
      `${" ".repeat(100_000)}1`,
      `-${" ".repeat(100_000)}x`,
      `${" ".repeat(50_000)}${"1".repeat(50_000)}`,
      "- a\n".repeat(50_000),
      "```\n".repeat(50_000),
      "|".repeat(100_000),
      `${"a. ".repeat(50_000)}\n\n${"b ".repeat(50_000)}`,
      `# h\n\n${"x".repeat(1_000_000)}`,
      // A table whose header leaves no room for a row once looped forever.
      `|${"a".repeat(1_000)}|\n|${"-".repeat(1_000)}|\n|${"x ".repeat(600)}|\n|y|`,
    ];
    for (const text of shapes) expectQuick(() => chunkMarkdown(text));
  });

  it("still reads ordinary headings as before", () => {
    expect(chunkMarkdown("## Install ##\n\ntext").map((c) => c.heading)).toEqual(["Install"]);
    expect(chunkMarkdown("#\tTabbed #not closed\n\ntext").map((c) => c.heading)).toEqual(["Tabbed #not closed"]);
    expect(chunkMarkdown("#NoSpace\n\ntext").map((c) => c.heading)).toEqual([""]);
    expect(chunkMarkdown("####### seven\n\ntext").map((c) => c.heading)).toEqual([""]);
  });
});

describe("JSON in model and flow output", () => {
  it("gives up on 65,000 unclosed braces at once (it stalled the server 5.5 s)", () => {
    expect(expectQuick(() => jsonIn("{".repeat(65_000)))).toBeUndefined();
    expect(expectQuick(() => jsonIn("[".repeat(65_000)))).toBeUndefined();
  });

  it("reads other hostile shapes at once", () => {
    const shapes = [
      `${"{".repeat(65_000)}${"}".repeat(10)}`,
      `${"[".repeat(30_000)}${"]".repeat(30_000)}`,
      "{}".repeat(100_000),
      `{"${"\\".repeat(100_000)}`,
      `{${'"'.repeat(100_000)}`,
      "{ ] ".repeat(50_000),
      `${"x ".repeat(100_000)}{"a": 1}`,
      `${"[x] ".repeat(50_000)}`,
    ];
    for (const text of shapes) expectQuick(() => jsonIn(text));
  });

  it("still finds the JSON a reply holds", () => {
    expect(jsonObjectIn('Here you are: {"total": 3, "items": ["a", "b"]} Anything else?')).toEqual({
      total: 3,
      items: ["a", "b"],
    });
    expect(jsonIn('["m1", "m2"]')).toEqual(["m1", "m2"]);
    expect(jsonObjectIn('[note] then {"passed": true, "reason": "ok } ]"}')).toEqual({
      passed: true,
      reason: "ok } ]",
    });
    expect(jsonIn("no json here")).toBeUndefined();
    expect(jsonIn("{not json}")).toBeUndefined();
  });
});

describe("page markdown and patches", () => {
  it("extracts links from hostile markdown at once", () => {
    const shapes = [
      "[".repeat(1_000_000),
      "[](page:".repeat(100_000),
      `[a](page:${"x".repeat(1_000_000)}`,
      `${"[".repeat(500_000)}${"](source:x)".repeat(1)}`,
      "](page:x".repeat(100_000),
    ];
    for (const text of shapes) expectQuick(() => parseLinks(text));
    expect(parseLinks("See [the guide](page:0f8fad5b-d9cb-469f-a165-70867728950e) and [a [b c](source:ABC).")).toEqual([
      { kind: "page", id: "0f8fad5b-d9cb-469f-a165-70867728950e" },
      { kind: "source", id: "abc" },
    ]);
  });

  it("finds patch anchors at once in a 1 MB page, whatever their shape", () => {
    const page = "a".repeat(1_000_000);
    const anchors = [`${"a".repeat(50_000)}b${"a".repeat(49_999)}`, "a".repeat(50_000), `${"a".repeat(99_999)}b`];
    for (const anchor of anchors) {
      expectQuick(() =>
        expect(() => applyPatch(page, [{ op: "replace", oldString: anchor, newString: "x" }])).toThrow(
          /must appear exactly once/,
        ),
      );
    }
    const repeated = expectQuick(() => {
      try {
        applyPatch(page, [{ op: "insert_after", anchor: "a".repeat(1_000), text: "x" }]);
      } catch (error) {
        return (error as Error).message;
      }
    });
    expect(repeated).toMatch(/appears 999001 times/);
  });
});

describe("flow templates", () => {
  it("fill hostile templates at once", () => {
    const scope = { inputs: { a: "1" }, nodes: {} };
    const shapes = [
      "{{".repeat(100_000),
      `{{${" ".repeat(100_000)}`,
      `{{inputs.${"a".repeat(100_000)}`,
      `{{ inputs.a${" ".repeat(100_000)}`,
      "{{inputs.a".repeat(20_000),
      "{{ nodes.x.output ".repeat(10_000),
    ];
    for (const template of shapes) expectQuick(() => render(template, scope));
    expect(render("{{ inputs.a }}{{nodes.x.output}}", { inputs: { a: 1 }, nodes: { x: { output: "y" } } })).toBe("1y");
  });
});

describe("indexing a hostile document", () => {
  it("keeps this process free to answer while sources built to stall the chunker are indexed", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const hostile = [
      spaced(8_000),
      spaced(100_000),
      `${spaced(8_000)}\n\n${"# a \t\n".repeat(50_000)}\n\n${"- a\n".repeat(50_000)}`,
    ];
    // Short ones are chunked in this process, long ones in the extraction child: both paths are tried.
    expect(hostile.map((text) => text.length > INLINE_CHUNKING_MAX_BYTES)).toEqual([false, true, true]);
    const ids: string[] = [];
    for (const contentMarkdown of hostile) {
      const response = await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { contentMarkdown } });
      expect(response.status).toBe(202);
      ids.push(response.body.source.id as string);
    }
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    let indexing = true;
    const drained = drainIndexJobs(getDb(), {}, 60_000).finally(() => (indexing = false));
    const answerTimes: number[] = [];
    while (indexing) {
      const started = performance.now();
      expect((await health(new Request("http://localhost/api/health"))).status).toBe(200);
      answerTimes.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await drained;
    delay.disable();
    expect(answerTimes.length).toBeGreaterThan(0);
    expect(Math.max(...answerTimes)).toBeLessThan(BOUND_MS);
    expect(delay.max / 1e6).toBeLessThan(BOUND_MS);
    for (const id of ids) expect((await sourceOf(key, kbId, id)).status).toBe("ready");
    const headings = await getDb().sourceChunk.findMany({ where: { sourceId: ids[1] }, select: { heading: true } });
    expect(headings).toEqual([{ heading: expect.stringMatching(/^a +b$/) }]);
  }, 90_000);
});

/**
 * PostgreSQL's text-search parser backtracks: each of these, repeated without a closing "-->" or
 * a space, took quadratic time (200 KB of "<!--" 169 s, 32 KB of "a@1" 30 s) in the generated
 * tsvectors, the question and the headline, holding a connection and its transaction meanwhile.
 */
const PARSER_STALLS = ["<!--", "<!--<", "a@1", "@1a", "a_", "_1", "./", "~/", '<a "'];
const PAGE_CHARS = 200 * 1024;

const repeated = (pattern: string, chars: number) => pattern.repeat(Math.ceil(chars / pattern.length)).slice(0, chars);

async function searchTitles(key: string, kbId: string, query: string) {
  const response = await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query, kinds: ["pages"] } });
  expect(response.status).toBe(200);
  return response.body.results as { title: string; snippet: string }[];
}

describe("text search over hostile text", () => {
  it.each(PARSER_STALLS)("writes and finds a 200 KB page of %j, and searches for it", async (pattern) => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const created = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key,
      body: { title: "Kalimba tuning", markdown: `kalimba ${repeated(pattern, PAGE_CHARS)}` },
    });
    expect(created.status).toBe(201);
    const id = created.body.page.id as string;
    const stored = await api("GET", `/knowledgebases/${kbId}/pages/${id}`, { key });
    expect(stored.body.markdown).toBe(`kalimba ${repeated(pattern, PAGE_CHARS)}`);
    const appended = await api("PATCH", `/knowledgebases/${kbId}/pages/${id}`, {
      key,
      body: { patch: [{ op: "append", text: ` marimba ${repeated(pattern, 90_000)}` }] },
    });
    expect(appended.status).toBe(200);
    expect((await searchTitles(key, kbId, "kalimba")).map((hit) => hit.title)).toEqual(["Kalimba tuning"]);
    expect((await searchTitles(key, kbId, "marimba")).map((hit) => hit.title)).toEqual(["Kalimba tuning"]);
    // The search's own question, at its longest.
    expect(await searchTitles(key, kbId, repeated(pattern, 500))).toBeInstanceOf(Array);
  });

  it("reads a run's question of 32,000 characters (a conversation message) at once", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    await newPage(tenant.orgKey.secret, kbId, { title: "Kalimba", markdown: "kalimba a@1 a_1" });
    for (const pattern of PARSER_STALLS) {
      const hits = await retrieve(getDb(), tenant.organization.id, {
        knowledgebaseIds: [kbId],
        query: `kalimba ${repeated(pattern, 32_000)}`,
        limit: 5,
      });
      expect(hits.map((hit) => hit.title)).toEqual(["Kalimba"]);
    }
  });

  it("indexes a source whose heading and text are hostile", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const contentMarkdown = `# ${repeated("a@1", 30_000)}\n\nkalimba ${repeated("a_", 30_000)}\n\n## <!--\n\n${repeated("<!--", 30_000)}`;
    const created = await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { contentMarkdown } });
    expect(created.status).toBe(202);
    await drainIndexJobs(getDb(), {}, 25_000);
    expect((await sourceOf(key, kbId, created.body.source.id as string)).status).toBe("ready");
    const search = await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query: "kalimba" } });
    expect(search.status).toBe(200);
    expect(search.body.results).toHaveLength(1);
  });

  it("stores a page of a million characters of distinct words (more than a tsvector holds)", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const words: string[] = ["kalimba"];
    for (let n = 0; words.length * 8 < 1_040_000; n++) words.push(`w${n.toString(36).padStart(6, "q")}`);
    const created = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key,
      body: { title: "Word list", markdown: words.join(" ") },
    });
    expect(created.status).toBe(201);
    expect((await searchTitles(key, kbId, "kalimba")).map((hit) => hit.title)).toEqual(["Word list"]);
  });

  it("breaks runs of 32 characters the same for short and long texts, inlined into each statement", async () => {
    // Texts under 32 bytes skip the regular expression (migration 20261207040000_short_search_text).
    const texts = ["", "a", "<b>", "x".repeat(31), "x".repeat(32), "x".repeat(33), "x".repeat(70), "é".repeat(20)];
    texts.push("é".repeat(40), `${"y".repeat(31)} <${"z".repeat(40)}`, "a\tb<c\vd");
    const { rows } = await getDb().pool.query<{
      text: string | null;
      searched: string | null;
      expected: string | null;
    }>(
      `select t.text, atrium_search_text(t.text) as searched,
         regexp_replace(translate(t.text, '<', U&'\\E000'), '[^ \\t\\n\\r\\f\\v]{32}', '\\&' || chr(11), 'g') as expected
       from unnest($1::text[] || array[null]) as t(text)`,
      [texts],
    );
    expect(rows).toHaveLength(texts.length + 1);
    for (const row of rows) expect(row.searched).toBe(row.expected);
    expect(rows.find((row) => row.text === "x".repeat(33))!.searched).toBe(`${"x".repeat(32)}\vx`);
    // A function PostgreSQL does not inline is called, parsed and planned apart on every statement.
    const { rows: plan } = await getDb().pool.query<{ "QUERY PLAN": string }>(
      "explain (verbose, costs off) select atrium_search_text(relname::text) from pg_class",
    );
    const output = plan.map((line) => line["QUERY PLAN"]).join("\n");
    expect(output).toContain("regexp_replace");
    expect(output).not.toContain("atrium_search_text");
  });

  it("keeps markup, long links and words whole in snippets", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const link = "https://example.com/a/very/long/path/that/goes/on/and/on/kalimba.html";
    await newPage(key, kbId, {
      title: "Keys",
      markdown: `Press <kbd>Ctrl</kbd> in the kalimba app, see ${link} <!-- x -->`,
    });
    const [hit] = await searchTitles(key, kbId, "kalimba");
    expect(hit!.snippet).toContain("<kbd>");
    expect(hit!.snippet).toContain(link.slice(0, 40));
    expect(hit!.snippet).not.toMatch(/[\uE000\v]/);
  });
});
