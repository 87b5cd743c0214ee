"use client";
// A tier plan's allowed models: every model (null), or the ones ticked from GET /models. The
// built-in model is always allowed, so it is not offered.
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc";
import { CheckboxGroup } from "@/components/console";

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
  return (
    <CheckboxGroup
      className="bare stack"
      legend="Models"
      lead={
        <label className="inline">
          <input type="checkbox" checked={value !== null} onChange={(e) => onChange(e.target.checked ? [] : null)} />
          Limit the models its end users&apos; apps may call (the built-in model is always allowed)
        </label>
      }
      choices={
        value === null
          ? []
          : offered.map((model) => ({
              value: model.id,
              label: (
                <>
                  {model.name} <code>{model.id}</code>
                </>
              ),
            }))
      }
      value={value ?? []}
      onChange={onChange}
    >
      {value !== null && offered.length === 0 && (
        <p className="muted">No provider models yet: only the built-in model is available.</p>
      )}
    </CheckboxGroup>
  );
}

/** How a plan's allowed models read in a table: "All", or their ids. */
export function allowedModelsText(models: string[] | null): string {
  if (models === null) return "All";
  return models.length === 0 ? "Built-in only" : models.join(", ");
}
