// What a test run did at each node, read from its execution's trace: the cards and the step list
// say how each step ran, the inspector shows the selected step's output.
import { formatMs } from "@/components/runtime/execution-trace";
import type { FlowNode } from "@/schemas/builder/builder";
import type { Execution } from "@/schemas/runs/runtime";

export interface NodeResult {
  status: "succeeded" | "failed" | "skipped";
  /** What the step was given (a model's prompt as rendered, a search's query), when it says. */
  input?: string;
  output?: string;
  note?: string;
  latencyMs?: number;
  tokens?: number;
  /** The credits of this node's model call, when the run's calls can be told apart by node. */
  credits?: number;
  /** How many times it ran (a loop's body runs once per item). */
  runs: number;
}

/** How a step ran, in the same words on its card, in the step list and in the inspector. */
export const STEP_STATUS_WORDS = { succeeded: "Ran", failed: "Failed", skipped: "Not run" } as const;

/** What a step's run cost, in words: its time, tokens, credits and, in a loop, how many runs. */
export function stepCost(result: NodeResult): string[] {
  return [
    result.latencyMs !== undefined ? formatMs(result.latencyMs) : "",
    result.tokens ? `${result.tokens} tokens` : "",
    result.credits !== undefined ? `${result.credits} credit${result.credits === 1 ? "" : "s"}` : "",
    result.runs > 1 ? `${result.runs} runs` : "",
  ].filter(Boolean);
}

/** Each node's result by id: what ran (its last output), where the run failed, what did not run. */
export function nodeResults(execution: Execution, nodes: FlowNode[]): Map<string, NodeResult> {
  const steps = execution.trace.filter((entry) => entry.kind === "node");
  // Model calls are metered in the order they were made; each is one llm step of the trace.
  const calls = execution.usage?.calls ?? [];
  const modelSteps = steps.filter((entry) => entry.model !== undefined || entry.inputTokens !== undefined);
  const creditsOf = new Map<object, number>();
  if (calls.length === modelSteps.length) modelSteps.forEach((entry, i) => creditsOf.set(entry, calls[i]!.credits));
  const failedId = (execution.error ?? "").match(/failed at node "?([A-Za-z0-9_-]+)"?/)?.[1];
  return new Map(
    nodes.map((node): [string, NodeResult] => {
      const ran = steps.filter((entry) => entry.id === node.id);
      const last = ran.at(-1);
      if (!last)
        return [
          node.id,
          {
            status: node.id === failedId ? "failed" : "skipped",
            runs: 0,
            ...(node.id === failedId ? { note: execution.error ?? undefined } : {}),
          },
        ];
      const credits = ran.reduce((sum, entry) => sum + (creditsOf.get(entry) ?? 0), 0);
      return [
        node.id,
        {
          status: "succeeded",
          ...(last.input !== undefined ? { input: last.input } : {}),
          output: last.output,
          note: last.note,
          latencyMs: ran.reduce((sum, entry) => sum + entry.latencyMs, 0),
          tokens: ran.reduce((sum, entry) => sum + (entry.inputTokens ?? 0) + (entry.outputTokens ?? 0), 0),
          ...(ran.some((entry) => creditsOf.has(entry)) ? { credits } : {}),
          runs: ran.length,
        },
      ];
    }),
  );
}
