// Flow templates: `{{inputs.key}}` and `{{nodes.<id>.output}}`.
export interface TemplateScope {
  inputs: Record<string, unknown>;
  nodes: Record<string, { output: string }>;
}

export const TEMPLATE_REFERENCE = /\{\{\s*(inputs|nodes)\.([A-Za-z0-9_-]+)(?:\.output)?\s*\}\}/g;

function show(value: unknown): string {
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
    const value = space === "inputs" ? show(scope.inputs[key]) : show(scope.nodes[key]?.output);
    length += value.length - match.length;
    if (length > maxChars) onTooLong();
    return value;
  });
}
