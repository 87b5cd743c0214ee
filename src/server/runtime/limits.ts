// The bounds of a run (agent, flow, app, test case), in one place. They sit far above anything
// a working flow or agent produces; exceeding one ends the run as failed with 422
// run_limit_exceeded naming the bound, checked as output is produced, never after the fact.
import { HTTP_NODE_LIMITS } from "@/schemas/builder/builder";
import { MAX_JSON_DEPTH, MAX_LOOP_ITEMS } from "@/schemas/limits";
import { CODE_LIMITS } from "./code-sandbox";
import { AppError } from "@/server/errors";

export const RUN_LIMITS = {
  /** Flow nodes and agent answers one run may execute (fan-out through data.next repeats nodes). */
  steps: 1_000,
  /** Characters one flow node may output (a template, an llm answer, search results). */
  nodeOutputChars: 256 * 1024,
  /** Characters of all nodes' outputs in one run together. */
  runOutputChars: 4 * 1024 * 1024,
  /** Characters one app member (agent or flow) may answer. */
  memberOutputChars: 256 * 1024,
  /** Characters of the reply a run hands back (conversation, transaction, test case). */
  replyChars: 64 * 1024,
  /** Wall time of one run, in milliseconds. */
  runMs: 120_000,
  /** Wall time of one call to a model provider, in milliseconds. */
  providerCallMs: 60_000,
  /** Characters of one retrieved passage (a page or document chunk) handed to a model or node. */
  passageChars: 32 * 1024,
  /** Characters of a node's or agent's output kept in the run's trace. */
  traceOutputChars: 4 * 1024,
  /**
   * Output tokens one call to a priced model may produce: its ceiling, reserved before the call
   * (billed-run.ts) and passed to the provider as its maximum, so it is never charged more.
   */
  callOutputTokens: 1024,
  /** A grading call's ceiling: its verdict is a short JSON object, so it reserves far less than an answer. */
  gradeOutputTokens: 256,
  /** Model calls one answer may make when it calls tools (each round of tool calls is one). */
  toolSteps: 8,
  /** Wall time of one tool call; a tool that takes longer is reported to the model as timed out. */
  toolCallMs: 30_000,
  /** Characters of one tool's result handed back to the model; the rest is cut off, and said so. */
  toolOutputChars: 32 * 1024,
  /** Characters of a member's output shown in a stream's `step` event: a glimpse, not the answer. */
  stepOutputChars: 500,
  /**
   * Characters of a conversation stream's events kept for resuming (services/runs/run-events.ts):
   * each event's data plus STORED_EVENT_OVERHEAD; the final `done` or `error` is always kept.
   */
  streamEventChars: 4 * 1024 * 1024,
  /** Nesting of the JSON a transaction's reply holds (as for request bodies): deeper is refused before it is parsed. */
  outputJsonDepth: MAX_JSON_DEPTH,
};

/** What each stored stream event counts beyond its data: many tiny events are bounded too. */
export const STORED_EVENT_OVERHEAD = 100;

export type RunBound =
  | "steps"
  | "tool steps"
  | "node output"
  | "run output"
  | "member output"
  | "reply"
  | "output depth"
  | "time"
  | "stream events"
  | "loop items"
  | "code time"
  | "code memory"
  | "http time"
  | "http answer";

const DESCRIBE: Record<RunBound, () => string> = {
  steps: () => `the run executed more than ${RUN_LIMITS.steps} steps`,
  "tool steps": () => `the model still asked for tools after ${RUN_LIMITS.toolSteps} calls`,
  "node output": () => `a node's output exceeded ${RUN_LIMITS.nodeOutputChars} characters`,
  "run output": () => `the nodes' outputs together exceeded ${RUN_LIMITS.runOutputChars} characters`,
  "member output": () => `a member's output exceeded ${RUN_LIMITS.memberOutputChars} characters`,
  reply: () => `the reply exceeded ${RUN_LIMITS.replyChars} characters`,
  "output depth": () => `the reply's JSON is nested more than ${RUN_LIMITS.outputJsonDepth} levels deep`,
  time: () => `the run took longer than ${RUN_LIMITS.runMs / 1000} seconds`,
  "stream events": () => `the stream's stored events exceeded ${RUN_LIMITS.streamEventChars} characters`,
  "loop items": () => `a loop may run over at most ${MAX_LOOP_ITEMS} items`,
  "code time": () => `a code node may run for at most ${CODE_LIMITS.timeMs / 1000} seconds`,
  "code memory": () => `a code node may use at most ${CODE_LIMITS.memoryBytes / (1024 * 1024)} MB`,
  "http time": () => `an http_request node's call may take at most ${HTTP_NODE_LIMITS.timeMs / 1000} seconds`,
  "http answer": () =>
    `an http_request node's answer may be at most ${HTTP_NODE_LIMITS.answerBytes / (1024 * 1024)} MB`,
};

export function runLimitExceeded(bound: RunBound, where = ""): AppError {
  return new AppError(
    "run_limit_exceeded",
    `Run limit exceeded (${bound}): ${DESCRIBE[bound]()}${where ? ` at ${where}` : ""}. The run was stopped and billed.`,
    { bound },
  );
}

/** Appends a piece to text produced so far, refusing before the text grows past `max`. */
export function appendBounded(text: string, piece: string, max: number, bound: RunBound, where?: string): string {
  if (text.length + piece.length > max) throw runLimitExceeded(bound, where);
  return text + piece;
}

/** A trace keeps the start of each output: enough to read, never the whole of a huge one. */
export function forTrace(output: string): string {
  return output.length <= RUN_LIMITS.traceOutputChars
    ? output
    : `${output.slice(0, RUN_LIMITS.traceOutputChars)}… (${output.length} characters)`;
}

/** A step event shows the start of a member's output. */
export function forStep(output: string): string {
  return output.length <= RUN_LIMITS.stepOutputChars ? output : `${output.slice(0, RUN_LIMITS.stepOutputChars)}…`;
}
