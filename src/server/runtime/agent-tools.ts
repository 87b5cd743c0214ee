// The tools an agent on a provider model may call: its attached flows (their inputs as the
// arguments) and, when it has knowledge, `search_knowledge` and `read_page`. Every call runs
// inside the run's bounds: it counts as a step, has its own time bound, its result is cut to a
// size the model can take, and it is a `step` event and a trace entry. A tool that fails or
// hangs is reported to the model, which carries on; a run bound or a cancel ends the run.
import type { FlowDocument, FlowInput } from "@/schemas/builder/builder";
import { isUuid } from "@/schemas/common";
import { inputSchemaOf } from "@/schemas/builder/flow-graph";
import type { Db } from "@/server/db";
import { isAppError } from "@/server/errors";
import { forStep, forTrace, RUN_LIMITS } from "./limits";
import type { ModelTool, Passage } from "./model-types";
import type { ProviderRow } from "./models";
import { retrievePassages } from "./retrieval/passages";

/** What a tool needs of its run (run.ts's RunContext has it; declared here so the two modules do not import each other). */
export interface ToolRunContext {
  db: Db;
  organizationId: string;
  trace: {
    push(entry: {
      id: string;
      kind: "tool";
      name: string;
      input: string;
      output: string;
      note?: string;
      latencyMs: number;
    }): unknown;
  };
  onStep?: (step: {
    kind: "member" | "tool";
    name: string;
    status: "started" | "finished" | "failed";
    output?: string;
  }) => void;
  /** The organization's model providers, when the run read them with its app. */
  providers?: ProviderRow[];
  /** The run's citations: passages a search finds are numbered for the model to cite. */
  citations?: { number(passage: Passage): number | null };
}

/** A tool as the agent defines it, before the run's bounds are put around it. */
export interface AgentTool extends Omit<ModelTool, "run"> {
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
  /** How the stream's `step` events name a call when not as a tool (an app member an adviser consults). */
  shownAs?: { kind: "member"; name: string };
}

/** The text without `_` at either end (by hand: `/_+$/` is quadratic over a long run of `_`). */
function trimUnderscores(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === "_") start++;
  while (end > start && text[end - 1] === "_") end--;
  return text.slice(start, end);
}

/** A provider-safe tool name: letters, digits, `_` and `-`, at most 64, unique in the set. */
export function toolName(base: string, taken: Set<string>): string {
  const clean = trimUnderscores(base.replace(/[^A-Za-z0-9_-]+/g, "_")).slice(0, 56) || "tool";
  let name = clean;
  for (let n = 2; taken.has(name); n++) name = `${clean}_${n}`;
  taken.add(name);
  return name;
}

function cutForModel(text: string): string {
  return text.length <= RUN_LIMITS.toolOutputChars
    ? text
    : `${text.slice(0, RUN_LIMITS.toolOutputChars)}\n… (cut: the result had ${text.length} characters)`;
}

/** The result of a call within the per-tool time bound; failures become text for the model. */
async function callBounded(
  tool: AgentTool,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<{ text: string; failed: boolean }> {
  const timeout = AbortSignal.timeout(RUN_LIMITS.toolCallMs);
  const callSignal = AbortSignal.any([signal, timeout]);
  let timer: (() => void) | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = () => reject(new Error(`the tool did not answer within ${RUN_LIMITS.toolCallMs / 1000} s`));
    callSignal.addEventListener("abort", timer, { once: true });
  });
  try {
    return { text: await Promise.race([tool.run(args, callSignal), timedOut]), failed: false };
  } catch (error) {
    if (isAppError(error) && (error.code === "run_limit_exceeded" || signal.aborted)) throw error;
    // A flow that reached an approval pauses the whole run (runtime/run.ts ApprovalPause).
    if (error instanceof Error && error.name === "ApprovalPause") throw error;
    if (signal.aborted) throw error;
    return { text: `The tool failed: ${error instanceof Error ? error.message : String(error)}`, failed: true };
  } finally {
    if (timer) callSignal.removeEventListener("abort", timer);
  }
}

/** Puts the run's bounds, its stream's step events and its trace around an agent's tool. */
export function boundedTool(ctx: ToolRunContext, tool: AgentTool, countStep: (where: string) => void): ModelTool {
  return {
    ...tool,
    async run(args, signal) {
      countStep(`tool "${tool.name}"`);
      const started = performance.now();
      const shown = tool.shownAs ?? { kind: "tool" as const, name: tool.name };
      ctx.onStep?.({ ...shown, status: "started" });
      const { text, failed } = await callBounded(tool, args, signal).catch((error: unknown) => {
        ctx.onStep?.({ ...shown, status: "failed" });
        throw error;
      });
      const result = cutForModel(text);
      ctx.onStep?.({ ...shown, status: failed ? "failed" : "finished", output: forStep(result) });
      ctx.trace.push({
        id: tool.name,
        kind: "tool",
        name: tool.name,
        input: forTrace(JSON.stringify(args)),
        output: forTrace(result),
        ...(failed ? { note: "the tool failed; the model was told" } : {}),
        latencyMs: Math.round(performance.now() - started),
      });
      return result;
    },
  };
}

export function flowTool(
  flow: { document: FlowDocument },
  taken: Set<string>,
  runFlow: (inputs: Record<string, unknown>, signal: AbortSignal) => Promise<string>,
): AgentTool {
  return {
    name: toolName(`flow_${flow.document.name}`, taken),
    description: flow.document.description || `Runs the flow "${flow.document.name}".`,
    parameters: inputSchemaOf(flow.document.inputs as FlowInput[]) as Record<string, unknown>,
    run: (args, signal) => runFlow(args, signal),
  };
}

/** `search_knowledge` and `read_page` over the agent's knowledgebases, in the run's organization. */
export function knowledgeTools(ctx: ToolRunContext, referenced: string[], taken: Set<string>): AgentTool[] {
  const knowledgebaseIds = referenced.filter((id) => isUuid(id));
  if (knowledgebaseIds.length === 0) return [];
  return [
    {
      name: toolName("search_knowledge", taken),
      description: "Searches the agent's knowledge for passages about a query; returns titles and text.",
      parameters: {
        type: "object",
        properties: { query: { type: "string", description: "What to look for" } },
        required: ["query"],
        additionalProperties: false,
      },
      async run(args) {
        const { passages } = await retrievePassages(
          ctx.db,
          ctx.organizationId,
          knowledgebaseIds,
          String(args.query ?? ""),
          ctx.providers,
        );
        if (passages.length === 0) return "Nothing found.";
        const numbered = passages.map((p) => {
          const n = ctx.citations?.number(p) ?? null;
          return `# ${n === null ? "" : `[${n}] `}${p.title}\n${p.text}`;
        });
        return `${numbered.join("\n\n")}\n\nCite a passage you use by its number in square brackets, like [1].`;
      },
    },
    {
      name: toolName("read_page", taken),
      description: "Reads a whole page of the agent's knowledge by its exact title.",
      parameters: {
        type: "object",
        properties: { title: { type: "string", description: "The page's title" } },
        required: ["title"],
        additionalProperties: false,
      },
      async run(args) {
        const page = await ctx.db.page.findFirst({
          where: {
            organizationId: ctx.organizationId,
            knowledgebaseId: { in: knowledgebaseIds },
            knowledgebase: { organizationId: ctx.organizationId, endUserId: null },
            title: String(args.title ?? ""),
          },
          select: { title: true, markdown: true },
        });
        return page
          ? `# ${page.title}\n${page.markdown.slice(0, RUN_LIMITS.passageChars)}`
          : "No page with that title.";
      },
    },
  ];
}
