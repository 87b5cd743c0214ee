// An agent's built-in tools. `webScrape` reads a public web page through the SSRF-safe fetcher
// and the extractor URL sources use; `webSearch` asks the search endpoint the operator configures
// (WEB_SEARCH_URL). A built-in this deployment cannot provide is refused when a draft enables it
// (invalid_request naming it), never silently ignored.
import { env } from "@/env";
import { BUILT_INS } from "@/schemas/builder/builder";
import { invalidRequest } from "@/server/errors";
import { deploymentFetch, fetchPolicy } from "@/server/integration-urls";
import { storableText } from "@/schemas/text";
import { htmlToMarkdown } from "@/server/jobs/extract";
import { fetchUrl } from "@/server/jobs/fetch-url";
import { toolName, type AgentTool } from "./agent-tools";

export type BuiltIn = (typeof BUILT_INS)[number];

/** Fetched pages the tools read are small: the model gets at most RUN_LIMITS.toolOutputChars of them anyway. */
const MAX_TOOL_FETCH_BYTES = 2 * 1024 * 1024;

/** Why each built-in is unavailable here, or null when it is available. */
export function builtInAvailability(): Record<BuiltIn, string | null> {
  return {
    webScrape: null,
    webSearch: env().WEB_SEARCH_URL ? null : "this deployment has no search endpoint (WEB_SEARCH_URL)",
    deepResearch: "not provided by this deployment",
    artifacts: "not provided by this deployment",
    voice: "not provided by this deployment",
  };
}

/** Each built-in and whether this deployment provides it, as GET /models lists them. */
export function builtInStatus(): { name: BuiltIn; available: boolean; reason: string | null }[] {
  const availability = builtInAvailability();
  return BUILT_INS.map((name) => ({ name, available: availability[name] === null, reason: availability[name] }));
}

/** Refuses a draft that enables a built-in this deployment cannot provide. */
export function checkBuiltIns(builtIns: Partial<Record<BuiltIn, boolean>> | undefined): void {
  const availability = builtInAvailability();
  const problems = BUILT_INS.filter((name) => builtIns?.[name] && availability[name]).map((name) => ({
    path: `builtIns.${name}`,
    message: `The built-in ${name} is unavailable: ${availability[name]}`,
  }));
  if (problems.length > 0) throw invalidRequest(problems);
}

/** The tool's own time bound (RUN_LIMITS.toolCallMs) cuts it off earlier when it is shorter. */
async function readPage(url: string): Promise<string> {
  // The URL comes from the model: public addresses only, whatever the operator allows integrations.
  const fetched = await fetchUrl(url, fetchPolicy("content", { maxBytes: MAX_TOOL_FETCH_BYTES, timeoutMs: 15_000 }));
  const text = fetched.bytes.toString("utf8");
  if (/html/i.test(fetched.contentType)) {
    const { title, markdown } = await htmlToMarkdown(text, fetched.url);
    return storableText(`# ${title}\n\n${markdown}`);
  }
  if (/^text\/|json/i.test(fetched.contentType)) return storableText(text);
  return `The page at ${fetched.url} is ${fetched.contentType || "of an unknown type"}; webScrape reads HTML and text only.`;
}

/** The tools of the built-ins an agent enables (available ones only: drafts cannot enable others). */
export function builtInTools(builtIns: Partial<Record<BuiltIn, boolean>>, taken: Set<string>): AgentTool[] {
  const availability = builtInAvailability();
  const tools: AgentTool[] = [];
  if (builtIns.webScrape && !availability.webScrape) {
    tools.push({
      name: toolName("web_scrape", taken),
      description: "Reads a public web page and returns its text as markdown.",
      parameters: {
        type: "object",
        properties: { url: { type: "string", description: "An http(s) URL" } },
        required: ["url"],
        additionalProperties: false,
      },
      run: (args) => readPage(String(args.url ?? "")),
    });
  }
  const searchUrl = env().WEB_SEARCH_URL;
  if (builtIns.webSearch && searchUrl) {
    tools.push({
      name: toolName("web_search", taken),
      description: "Searches the web; returns titles, URLs and snippets.",
      parameters: {
        type: "object",
        properties: { query: { type: "string" } },
        required: ["query"],
        additionalProperties: false,
      },
      async run(args, signal) {
        const url = new URL(searchUrl);
        url.searchParams.set("q", String(args.query ?? ""));
        // The operator's own endpoint: trusted like the default model provider (any address but a metadata one).
        const response = await deploymentFetch(url, { signal });
        if (!response.ok) throw new Error(`the search endpoint answered HTTP ${response.status}`);
        const body = (await response.json()) as { results?: { title?: string; url?: string; snippet?: string }[] };
        return (
          (body.results ?? [])
            .slice(0, 10)
            .map((r) => `- ${r.title ?? ""} (${r.url ?? ""})\n  ${r.snippet ?? ""}`)
            .join("\n") || "No results."
        );
      },
    });
  }
  return tools;
}
