// The flow nodes that decide, call and compute (condition, set_variable, loop items, http_request,
// code), run by runFlow (run.ts). Each node's data is checked again here as it runs, since a
// stored version may predate a rule; a problem ends the run as `invalid_workflow` naming the node,
// a breached bound as `run_limit_exceeded` naming the bound and the node.
import jsonLogic, { type RulesLogic } from "json-logic-js";
import { HTTP_NODE_LIMITS, NODE_DATA, type FlowNode } from "@/schemas/builder/builder";
import { expressionProblem } from "@/schemas/builder/flow-graph";
import { MAX_LOOP_ITEMS, MAX_URL_CHARS } from "@/schemas/limits";
import { AppError } from "@/server/errors";
import { fetchPolicy } from "@/server/integration-urls";
import { FetchRefused, pinnedFetch } from "@/server/jobs/fetch-url";
import type { z } from "zod";
import { runCode } from "./code-sandbox";
import { RUN_LIMITS, runLimitExceeded } from "./limits";
import { endpointOf } from "./mcp-client";
import { render, type TemplateScope } from "./templates";

/** A node that cannot do what its data asks: the run ends, naming the node. */
export function nodeFailed(node: FlowNode, where: string, message: string): AppError {
  return new AppError("invalid_workflow", `The flow failed at ${where}: ${message}.`, {
    feedback: [{ nodeId: node.id, message }],
  });
}

type NodeData = typeof NODE_DATA;

/** The node's data by its type's rules, as it runs. */
export function dataOf<T extends keyof NodeData>(node: FlowNode, type: T, where: string): z.output<NodeData[T]> {
  const parsed = NODE_DATA[type].safeParse(node.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw nodeFailed(node, where, `data.${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data as z.output<NodeData[T]>;
}

/** What JSON Logic reads: `inputs`, `vars`, `nodes.<id>.output` (and `.json`), `loop.item` and `loop.index`. */
function variables(scope: TemplateScope): Record<string, unknown> {
  return { inputs: scope.inputs, vars: scope.vars, nodes: scope.nodes, ...(scope.loop ? { loop: scope.loop } : {}) };
}

/** A JSON Logic expression's value over the run's variables. */
export function evaluate(node: FlowNode, where: string, field: string, expression: unknown, scope: TemplateScope) {
  const problem = expressionProblem(expression);
  if (problem) throw nodeFailed(node, where, `${field} ${problem}`);
  try {
    return jsonLogic.apply(expression as RulesLogic, variables(scope)) as unknown;
  } catch (error) {
    throw nodeFailed(node, where, `${field} could not be evaluated (${(error as Error).message})`);
  }
}

/** The output a node keeps for expressions: the text, and the value it holds when it is JSON. */
export function nodeResult(output: string): { output: string; json?: unknown } {
  const start = output.trimStart()[0];
  if (start !== "{" && start !== "[") return { output };
  try {
    return { output, json: JSON.parse(output) };
  } catch {
    return { output };
  }
}

/** The branch a condition takes: the first whose `when` is true, else `else` (or none: the run ends). */
export function chooseBranch(node: FlowNode, where: string, scope: TemplateScope): { name: string; next: string[] } {
  const data = dataOf(node, "condition", where);
  const ids = (next: string | string[] | undefined) => (next === undefined ? [] : Array.isArray(next) ? next : [next]);
  for (const [i, branch] of data.branches.entries()) {
    if (jsonLogic.truthy(evaluate(node, where, `data.branches.${i}.when`, branch.when, scope)))
      return { name: branch.name, next: ids(branch.next) };
  }
  return { name: "else", next: ids(data.else) };
}

/** The value a set_variable node sets: its template rendered, or its expression's value. */
export function variableValue(
  node: FlowNode,
  where: string,
  scope: TemplateScope,
  tooLong: () => never,
): { name: string; value: unknown } {
  const data = dataOf(node, "set_variable", where);
  if ((data.value === undefined) === (data.expression === undefined))
    throw nodeFailed(node, where, "data.value (a template) or data.expression (JSON Logic), exactly one, is needed");
  const value =
    data.value !== undefined
      ? render(data.value, scope, RUN_LIMITS.nodeOutputChars, tooLong)
      : evaluate(node, where, "data.expression", data.expression, scope);
  return { name: data.name, value };
}

/** The list a loop runs over: its expression's value, or text holding a JSON array; at most MAX_LOOP_ITEMS. */
export function loopItems(node: FlowNode, where: string, scope: TemplateScope): unknown[] {
  const data = dataOf(node, "loop", where);
  let items = evaluate(node, where, "data.items", data.items, scope);
  if (typeof items === "string") {
    try {
      items = JSON.parse(items);
    } catch {
      /* said below */
    }
  }
  if (!Array.isArray(items))
    throw nodeFailed(node, where, `data.items gave ${items === null ? "null" : typeof items}, not a list`);
  if (items.length > MAX_LOOP_ITEMS) throw runLimitExceeded("loop items", `${where} (a list of ${items.length})`);
  return items;
}

/** Runs items at most `concurrency` at once; the results keep the items' order. The first failure stops the rest. */
export async function eachLimited<T, R>(items: T[], concurrency: number, run: (item: T, index: number) => Promise<R>) {
  const results = new Array<R>(items.length);
  let nextIndex = 0;
  let failed = false;
  const worker = async () => {
    while (nextIndex < items.length && !failed) {
      const index = nextIndex++;
      try {
        results[index] = await run(items[index]!, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** The URL's origin as the builder wrote it, when the template fixes it before any variable. */
function writtenOrigin(template: string): string | null {
  const literal = template.split("{{")[0]!;
  const match =
    /^(https?:\/\/[^/?#]+)[/?#]/i.exec(literal) ??
    (literal === template ? /^(https?:\/\/[^/?#]+)$/i.exec(literal) : null);
  if (!match) return null;
  try {
    return new URL(match[1]!).origin;
  } catch {
    return null;
  }
}

/** Reads a response's body, refusing it as soon as it outgrows `max` bytes. */
async function boundedText(response: Response, max: number, tooLarge: () => never): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export interface HttpContext {
  organizationId: string;
  signal: AbortSignal;
  findConnection(slug: string): Promise<{ url: string; headersCiphertext: string | null } | null>;
}

/**
 * An http_request node's call: the URL, headers and body rendered; the stored headers of the MCP
 * connection it names (only to that connection's origin); through pinnedFetch with the address
 * rules of its purpose. A URL whose origin the builder wrote is an integration endpoint (public
 * addresses only, unless the operator allows private ones, as for model providers and MCP
 * servers); one whose origin comes from a variable is content, like a URL source: public only.
 * Redirects are not followed. The answer's body is the output.
 */
export async function httpRequest(
  ctx: HttpContext,
  node: FlowNode,
  where: string,
  scope: TemplateScope,
  tooLong: () => never,
): Promise<{ output: string; note: string }> {
  const data = dataOf(node, "http_request", where);
  const urlTooLong = (): never => {
    throw nodeFailed(node, where, `the URL is longer than ${MAX_URL_CHARS} characters`);
  };
  const url = render(data.url, scope, MAX_URL_CHARS, urlTooLong);
  const origin = writtenOrigin(data.url);
  const purpose = origin !== null && URL.canParse(url) && new URL(url).origin === origin ? "integration" : "content";
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(data.headers ?? {}))
    headers[name] = render(template, scope, MAX_URL_CHARS, urlTooLong);
  if (data.credentials !== undefined) {
    const connection = await ctx.findConnection(data.credentials);
    if (!connection)
      throw nodeFailed(
        node,
        where,
        `data.credentials names no MCP connection of this organization ("${data.credentials}")`,
      );
    const endpoint = endpointOf(connection);
    if (!URL.canParse(url) || new URL(url).origin !== new URL(endpoint.url).origin)
      throw nodeFailed(
        node,
        where,
        `the stored headers of "${data.credentials}" are sent only to ${new URL(endpoint.url).origin}, not to this URL`,
      );
    Object.assign(headers, endpoint.headers);
  }
  const body =
    data.body !== undefined && data.method !== "GET"
      ? render(data.body, scope, RUN_LIMITS.nodeOutputChars, tooLong)
      : undefined;
  const timeout = AbortSignal.timeout(HTTP_NODE_LIMITS.timeMs);
  const timedOut = (): never => {
    throw runLimitExceeded("http time", where);
  };
  let response: Response;
  try {
    response = await pinnedFetch(
      url,
      { method: data.method, headers, body, redirect: "manual", signal: AbortSignal.any([ctx.signal, timeout]) },
      fetchPolicy(purpose),
    );
  } catch (error) {
    if (timeout.aborted) timedOut();
    if (ctx.signal.aborted) throw error;
    if (error instanceof FetchRefused) throw nodeFailed(node, where, error.message);
    const code = (error as { cause?: { message?: unknown } }).cause?.message;
    throw nodeFailed(node, where, `the request failed${typeof code === "string" ? ` (${code})` : ""}`);
  }
  let text: string;
  try {
    text = await boundedText(response, HTTP_NODE_LIMITS.answerBytes, () => {
      throw runLimitExceeded("http answer", where);
    });
  } catch (error) {
    if (timeout.aborted) timedOut();
    throw error;
  }
  if (response.status < 200 || response.status >= 300)
    throw nodeFailed(node, where, `${new URL(url).origin} answered HTTP ${response.status}`);
  return { output: text, note: `${data.method} ${new URL(url).origin} answered HTTP ${response.status}` };
}

/** A code node's result: what its JavaScript returns, or the failure that ended it. */
export async function codeNode(node: FlowNode, where: string, scope: TemplateScope): Promise<string> {
  const data = dataOf(node, "code", where);
  const outcome = await runCode(data.code, {
    inputs: scope.inputs,
    vars: scope.vars,
    nodes: scope.nodes,
    ...(scope.loop ? { loop: scope.loop } : {}),
  });
  if (outcome.ok) return outcome.output;
  if (outcome.bound) throw runLimitExceeded(outcome.bound, where);
  throw nodeFailed(node, where, `the code threw ${outcome.message}`);
}
