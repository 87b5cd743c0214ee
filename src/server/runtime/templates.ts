// Flow templates: `{{inputs.key}}`, `{{vars.name}}`, `{{nodes.<id>.output}}`, and in a loop's
// body `{{loop.item}}` and `{{loop.index}}`.
import type { Passage } from "./model-types";

export interface TemplateScope {
  inputs: Record<string, unknown>;
  /** Each node's output, and (when it is JSON) the output parsed, for expressions. */
  nodes: Record<string, { output: string; json?: unknown }>;
  /** What set_variable nodes set (a flow run always has it). */
  vars?: Record<string, unknown>;
  /** In a loop's body: the item and its position in the list. */
  loop?: { item: unknown; index: number };
  /** The passages each knowledge search found, for the built-in model's LLM steps (offline-step.ts). */
  passages?: Record<string, Passage[]>;
}

export const TEMPLATE_REFERENCE = /\{\{\s*(inputs|nodes|vars|loop)\.([A-Za-z0-9_-]+)(?:\.output)?\s*\}\}/g;

function lookup(scope: TemplateScope, space: string, key: string): unknown {
  if (space === "inputs") return Object.hasOwn(scope.inputs, key) ? scope.inputs[key] : undefined;
  if (space === "vars") return scope.vars && Object.hasOwn(scope.vars, key) ? scope.vars[key] : undefined;
  if (space === "loop") return key === "item" ? scope.loop?.item : key === "index" ? scope.loop?.index : undefined;
  return Object.hasOwn(scope.nodes, key) ? scope.nodes[key]!.output : undefined;
}

export function show(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * The template with its references filled in. `onTooLong` is called (and must throw) as soon as
 * the result would exceed `maxChars`, before it is ever built: a template that repeats a large
 * output many times costs no more memory than the bound.
 */
export function render(
  template: string,
  scope: TemplateScope,
  maxChars = Infinity,
  onTooLong: () => never = () => {
    throw new RangeError("template output too long");
  },
): string {
  let length = template.length;
  if (length > maxChars) onTooLong();
  return template.replace(TEMPLATE_REFERENCE, (match: string, space: string, key: string) => {
    const value = show(lookup(scope, space, key));
    length += value.length - match.length;
    if (length > maxChars) onTooLong();
    return value;
  });
}
