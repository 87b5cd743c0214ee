"use client";
// The organization's models (GET /models) as a select's options, grouped by provider: the agent's
// model, its fallbacks and a flow's LLM step pick from the same list.
export type ModelList = { id: string; name: string; provider: string }[];

export function ModelOptions({ models, exclude = [] }: { models: ModelList | undefined; exclude?: string[] }) {
  const offered = (models ?? []).filter((model) => !exclude.includes(model.id));
  const providers = [...new Set(offered.map((model) => model.provider))];
  return providers.map((provider) => (
    <optgroup key={provider} label={provider === "builtin" ? "Built-in" : `Provider ${provider}`}>
      {offered
        .filter((model) => model.provider === provider)
        .map((model) => (
          <option key={model.id} value={model.id}>
            {model.name}
          </option>
        ))}
    </optgroup>
  ));
}
