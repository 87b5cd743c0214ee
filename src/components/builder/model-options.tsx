"use client";
// The organization's models (GET /models) as a select's options, grouped by provider: the agent's
// model, its fallbacks and a flow's LLM step pick from the same list.
import type { SelectGroup } from "@/components/console";

export type ModelList = { id: string; name: string; provider: string }[];

export function modelOptions(models: ModelList | undefined, exclude: string[] = []): SelectGroup[] {
  const offered = (models ?? []).filter((model) => !exclude.includes(model.id));
  const providers = [...new Set(offered.map((model) => model.provider))];
  return providers.map((provider) => ({
    group: provider === "builtin" ? "Built-in" : `Provider ${provider}`,
    options: offered
      .filter((model) => model.provider === provider)
      .map((model) => ({ value: model.id, label: model.name })),
  }));
}
