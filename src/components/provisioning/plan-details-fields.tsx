"use client";
// What a plan says about itself in the plan forms: description, the price shown (never charged
// here) and what it includes, one line each.
import { FormField, Select } from "@/components/console";
import "./provisioning.css";
import { parsePrice, priceInputText } from "@/lib/plan-price";
import { MAX_DESCRIPTION_CHARS } from "@/schemas/limits";
import {
  CURRENCY_CODE_CHARS,
  MAX_PLAN_FEATURE_CHARS,
  MAX_PLAN_FEATURES,
  type TierPlan,
} from "@/schemas/provisioning/provisioning";

export interface PlanDetailsDraft {
  description: string;
  price: string;
  currency: string;
  interval: "month" | "year";
  features: string;
}

export function planDetailsDraft(plan?: TierPlan): PlanDetailsDraft {
  return {
    description: plan?.description ?? "",
    price: plan ? priceInputText(plan.priceAmount, plan.priceCurrency) : "",
    currency: plan?.priceCurrency ?? "USD",
    interval: plan?.priceInterval ?? "month",
    features: plan?.features.join("\n") ?? "",
  };
}

/** The draft as the API takes it; `priceAmount` NaN when the price is not a number (the form says so). */
export function planDetailsInput(draft: PlanDetailsDraft) {
  const currency = draft.currency.trim().toUpperCase();
  return {
    description: draft.description.trim(),
    priceAmount: parsePrice(draft.price, currency),
    priceCurrency: currency,
    priceInterval: draft.interval,
    features: draft.features
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean),
  };
}

export function PlanDetailsFields({
  value,
  onChange,
  errors = {},
}: {
  value: PlanDetailsDraft;
  onChange: (next: PlanDetailsDraft) => void;
  /** The plan form's problems with these fields (its schema's), each shown beside its field. */
  errors?: Partial<Record<keyof PlanDetailsDraft, string | null>>;
}) {
  const set = (patch: Partial<PlanDetailsDraft>) => onChange({ ...value, ...patch });
  const badPrice = Number.isNaN(parsePrice(value.price, value.currency || "USD"));
  const lines = value.features.split("\n").filter((line) => line.trim()).length;
  return (
    <>
      <FormField
        label="Description"
        hint="Shown to end users in the portal beside the plan's name"
        error={errors.description}
      >
        <textarea
          rows={2}
          maxLength={MAX_DESCRIPTION_CHARS}
          value={value.description}
          onChange={(e) => set({ description: e.target.value })}
        />
      </FormField>
      <div className="row" style={{ alignItems: "flex-start" }}>
        <FormField
          label="Price"
          hint="Shown, not charged; leave blank for none"
          error={badPrice ? "A price such as 29 or 29.00" : errors.price}
        >
          <input inputMode="decimal" value={value.price} onChange={(e) => set({ price: e.target.value })} />
        </FormField>
        <FormField label="Currency" error={errors.currency}>
          <input
            maxLength={CURRENCY_CODE_CHARS}
            size={4}
            pattern="[A-Za-z]{3}"
            value={value.currency}
            onChange={(e) => set({ currency: e.target.value.toUpperCase() })}
          />
        </FormField>
        <FormField label="Per">
          <Select
            value={value.interval}
            onChange={(e) => set({ interval: e.target.value as "month" | "year" })}
            options={[
              { value: "month", label: "month" },
              { value: "year", label: "year" },
            ]}
          />
        </FormField>
      </div>
      <FormField
        label="What it includes"
        hint={`One line each, up to ${MAX_PLAN_FEATURES} lines of ${MAX_PLAN_FEATURE_CHARS} characters`}
        error={lines > MAX_PLAN_FEATURES ? `At most ${MAX_PLAN_FEATURES} lines` : errors.features}
      >
        <textarea rows={3} value={value.features} onChange={(e) => set({ features: e.target.value })} />
      </FormField>
    </>
  );
}
