// Flow templates: `{{inputs.key}}` and `{{nodes.<id>.output}}`.
export interface TemplateScope {
  inputs: Record<string, unknown>;
  nodes: Record<string, { output: string }>;
}

function show(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

export function render(template: string, scope: TemplateScope): string {
  return template.replace(/\{\{\s*(inputs|nodes)\.([A-Za-z0-9_-]+)(?:\.output)?\s*\}\}/g, (_match, space: string, key: string) =>
    space === "inputs" ? show(scope.inputs[key]) : show(scope.nodes[key]?.output),
  );
}
