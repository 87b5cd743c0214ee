"use client";
// A tier plan's allowed models: every model (null), or the ones ticked from GET /models. The
// built-in model is always allowed, so it is not offered.
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc";

export function AllowedModelsField({
  value,
  onChange,
}: {
  value: string[] | null;
  onChange: (models: string[] | null) => void;
}) {
  const trpc = useTRPC();
  const models = useQuery(trpc.models.list.queryOptions({}));
  const offered = (models.data?.models ?? []).filter((model) => model.provider !== "builtin");
  const toggle = (id: string, on: boolean) =>
    onChange(on ? [...(value ?? []), id] : (value ?? []).filter((model) => model !== id));
  return (
    <fieldset className="stack">
      <legend>Models</legend>
      <label className="inline">
        <input type="checkbox" checked={value !== null} onChange={(e) => onChange(e.target.checked ? [] : null)} />
        Limit the models its end users&apos; apps may call (the built-in model is always allowed)
      </label>
      {value !== null &&
        (offered.length === 0 ? (
          <p className="muted">No provider models yet: only the built-in model is available.</p>
        ) : (
          offered.map((model) => (
            <label className="inline" key={model.id}>
              <input
                type="checkbox"
                checked={value.includes(model.id)}
                onChange={(e) => toggle(model.id, e.target.checked)}
              />
              {model.name} <code>{model.id}</code>
            </label>
          ))
        ))}
    </fieldset>
  );
}

/** How a plan's allowed models read in a table: "All", or their ids. */
export function allowedModelsText(models: string[] | null): string {
  if (models === null) return "All";
  return models.length === 0 ? "Built-in only" : models.join(", ");
}
