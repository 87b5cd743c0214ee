"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Pencil } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { useWatch, type FieldPath, type UseFormReturn } from "react-hook-form";
import {
  Button,
  ConfirmButton,
  ConfirmDialog,
  DataTable,
  ErrorAlert,
  FormField,
  LoadMore,
  NAME_COLUMN,
  notifyDone,
  PageHeader,
  Panel,
  fieldProblem,
  useFieldValue,
  useMay,
  useZodForm,
} from "@/components/console";
import { cappedCount } from "@/lib/digits";
import { useTRPC } from "@/lib/trpc";
import { CreateTierPlanInput, UpdateTierPlanInput, type TierPlan } from "@/schemas/provisioning/provisioning";
import { MAX_NAME_CHARS } from "@/schemas/limits";
import { useTierPlans } from "@/components/provisioning/use-lists";
import { AllowedModelsField, allowedModelsText } from "@/components/provisioning/allowed-models-field";
import {
  PlanDetailsFields,
  planDetailsDraft,
  planDetailsInput,
  type PlanDetailsDraft,
} from "@/components/provisioning/plan-details-fields";
import { planPriceText } from "@/lib/plan-price";

export default function PlansPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const plans = useTierPlans();
  const subscribers = useQuery(trpc.tierPlans.subscribers.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.tierPlans.pathKey() });
  const [editing, setEditing] = useState<TierPlan | null>(null);
  // Plans are made, changed and archived by admins; others read them.
  const mayGrant = useMay("grant");
  const archive = useMutation(trpc.tierPlans.archive.mutationOptions({ onSuccess: () => void refresh() }));
  const countOf = new Map(subscribers.data?.counts.map((row) => [row.tierPlanId, row]));
  const subscribersOf = (plan: TierPlan) => countOf.get(plan.id)?.subscribers ?? 0;

  return (
    <>
      <PageHeader
        title="Tier plans"
        description="Each plan an end user holds is its own subscription with its own monthly credits."
      />
      {!mayGrant && <p className="muted">Admins and owners create, edit and archive plans.</p>}
      {mayGrant && <CreatePlanPanel onCreated={() => void refresh()} />}
      {editing && (
        <EditPlan
          key={editing.id}
          plan={editing}
          subscribers={subscribersOf(editing)}
          atLeast={countOf.get(editing.id)?.atLeast ?? false}
          onDone={() => setEditing(null)}
        />
      )}
      <Panel>
        <ErrorAlert error={plans.error ?? subscribers.error ?? archive.error} />
        <DataTable
          label="Tier plans"
          rows={plans.isLoaded ? plans.items : undefined}
          rowTestId="plan-row"
          cards
          empty={
            mayGrant
              ? "No plans yet: create one above, then choose it when you provision an end user."
              : "No plans yet: an admin creates them."
          }
          columns={[
            {
              ...NAME_COLUMN,
              cell: (plan) => (
                <div>
                  {plan.name}
                  {plan.description && <div className="muted">{plan.description}</div>}
                  {plan.features.length > 0 && (
                    <ul className="plan-features" aria-label={`${plan.name} includes`}>
                      {plan.features.map((feature, i) => (
                        <li key={i}>{feature}</li>
                      ))}
                    </ul>
                  )}
                </div>
              ),
            },
            {
              key: "price",
              header: "Price",
              nowrap: true,
              sortValue: (plan) => plan.priceAmount,
              cell: (plan) => planPriceText(plan) ?? <span className="muted">—</span>,
            },
            {
              key: "credits",
              header: "Monthly credits",
              cell: (plan) => plan.creditAllowance,
              sortValue: (plan) => plan.creditAllowance,
              nowrap: true,
            },
            {
              key: "subscribers",
              header: "Subscribers",
              cell: (plan) => (
                <span data-testid="plan-subscribers">
                  {cappedCount(subscribersOf(plan), countOf.get(plan.id)?.atLeast ?? false)}
                </span>
              ),
              sortValue: subscribersOf,
              nowrap: true,
            },
            { key: "models", header: "Models", cell: (plan) => allowedModelsText(plan.allowedModels) },
            {
              key: "group",
              header: "Plan group",
              cell: (plan) => (plan.groupId ? <Link href={`/groups/${plan.groupId}`}>{plan.name} group</Link> : "—"),
            },
            {
              key: "status",
              header: "Status",
              cell: (plan) =>
                plan.archived ? <span className="badge revoked">Archived</span> : <span className="badge">Live</span>,
            },
            ...(mayGrant
              ? [
                  {
                    key: "actions",
                    header: "Actions",
                    nowrap: true,
                    cell: (plan: TierPlan) => (
                      <div className="row">
                        <button type="button" onClick={() => setEditing(plan)} aria-label={`Edit ${plan.name}`}>
                          <Pencil size={16} aria-hidden className="icon" />
                          Edit
                        </button>
                        {!plan.archived && (
                          <ConfirmButton
                            label="Archive"
                            title={`Archive ${plan.name}?`}
                            description="Its subscribers keep it; it can no longer be given to anyone."
                            confirmLabel="Archive"
                            onConfirm={() => archive.mutate({ tierPlanId: plan.id })}
                          />
                        )}
                      </div>
                    ),
                  },
                ]
              : []),
          ]}
        />
        <LoadMore list={plans} />
      </Panel>
    </>
  );
}

/** A plan form as typed: the API's fields, the credits a number field, the details as PlanDetailsFields keeps them. */
interface PlanFields {
  name: string;
  credits: number;
  withGroup: boolean;
  allowedModels: string[] | null;
  details: PlanDetailsDraft;
}

/** The create input the fields make (an edit sends all but `withGroup`). */
function planInput(fields: PlanFields) {
  return {
    name: fields.name,
    creditAllowance: fields.credits,
    allowedModels: fields.allowedModels,
    withGroup: fields.withGroup,
    ...planDetailsInput(fields.details),
  };
}

/** Where a problem of the input shows: beside the field that typed it. */
function planField([field]: readonly PropertyKey[]) {
  const fields: Record<string, string> = {
    name: "name",
    creditAllowance: "credits",
    allowedModels: "allowedModels",
    description: "details.description",
    priceAmount: "details.price",
    priceCurrency: "details.currency",
    priceInterval: "details.interval",
    features: "details.features",
  };
  return ((typeof field === "string" ? fields[field] : undefined) as FieldPath<PlanFields> | undefined) ?? null;
}

/** The problems of the details' fields, for PlanDetailsFields. */
function detailProblems(form: Pick<UseFormReturn<PlanFields, unknown, unknown>, "formState">) {
  const of = (field: keyof PlanDetailsDraft) => fieldProblem(form, `details.${field}`);
  return { description: of("description"), price: of("price"), currency: of("currency"), features: of("features") };
}

/** A new plan: name, monthly credits, its own group if wanted, what it says about itself and its models. */
function CreatePlanPanel({ onCreated }: { onCreated: () => void }) {
  const trpc = useTRPC();
  const form = useZodForm(CreateTierPlanInput, {
    defaultValues: { name: "", credits: 100, withGroup: false, allowedModels: null, details: planDetailsDraft() },
    asInput: planInput,
    fieldOf: planField,
  });
  const [allowedModels, setAllowedModels] = useFieldValue(form, "allowedModels");
  const [details, setDetails] = useFieldValue(form, "details");
  const create = useMutation(
    trpc.tierPlans.create.mutationOptions({
      onSuccess: () => {
        form.reset({ ...form.getValues(), name: "", allowedModels: null, details: planDetailsDraft() });
        onCreated();
      },
    }),
  );
  const submit = form.handleSubmit((input) => create.mutate(input));
  return (
    <Panel label="Create a tier plan" onSubmit={(event) => void submit(event)}>
      <div className="row">
        <FormField label="Name" error={fieldProblem(form, "name")}>
          <input required {...form.register("name")} />
        </FormField>
        <FormField label="Monthly credits" error={fieldProblem(form, "credits")}>
          <input type="number" min={0} required {...form.register("credits", { valueAsNumber: true })} />
        </FormField>
      </div>
      <label className="inline">
        <input type="checkbox" {...form.register("withGroup")} />
        Give the plan its own user group (membership follows the plan)
      </label>
      <PlanDetailsFields value={details} onChange={setDetails} errors={detailProblems(form)} />
      <AllowedModelsField value={allowedModels} onChange={setAllowedModels} />
      <ErrorAlert error={fieldProblem(form, "root") ?? create.error} />
      <div>
        <Button variant="primary" type="submit" disabled={create.isPending}>
          Create plan
        </Button>
      </div>
    </Panel>
  );
}

/** Renames a plan or changes its credits or models; new credits reach every active subscriber at once, so that asks first. */
function EditPlan({
  plan,
  subscribers,
  atLeast,
  onDone,
}: {
  plan: TierPlan;
  subscribers: number;
  atLeast: boolean;
  onDone: () => void;
}) {
  const shown = cappedCount(subscribers, atLeast);
  const many = atLeast || subscribers !== 1;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(UpdateTierPlanInput, {
    defaultValues: {
      name: plan.name,
      credits: plan.creditAllowance,
      withGroup: false,
      allowedModels: plan.allowedModels,
      details: planDetailsDraft(plan),
    },
    asInput: (fields: PlanFields) => {
      const { withGroup: _, ...input } = planInput(fields);
      return { tierPlanId: plan.id, ...input, name: fields.name.trim() };
    },
    fieldOf: planField,
  });
  const [allowedModels, setAllowedModels] = useFieldValue(form, "allowedModels");
  const [details, setDetails] = useFieldValue(form, "details");
  const credits = useWatch({ control: form.control, name: "credits" });
  // A change of credits waits here for the confirmation.
  const [confirming, setConfirming] = useState<UpdateTierPlanInput | null>(null);
  const update = useMutation(
    trpc.tierPlans.update.mutationOptions({
      onSuccess: (result) => {
        void queryClient.invalidateQueries({ queryKey: trpc.tierPlans.pathKey() });
        notifyDone(`${result.tierPlan.name} saved.`);
        onDone();
      },
    }),
  );
  const submit = form.handleSubmit((input) => {
    if (input.creditAllowance !== plan.creditAllowance && subscribers > 0) setConfirming(input);
    else update.mutate(input);
  });

  return (
    <Panel title={<>Edit {plan.name}</>} headingId="edit-plan-title" onSubmit={(event) => void submit(event)}>
      <div className="row">
        <FormField label="Name" error={fieldProblem(form, "name")}>
          <input required maxLength={MAX_NAME_CHARS} {...form.register("name")} />
        </FormField>
        <FormField
          label="Monthly credits"
          hint={`${shown} active subscriber${many ? "s get" : " gets"} new credits at once`}
          error={fieldProblem(form, "credits")}
        >
          <input
            type="number"
            min={0}
            max={1_000_000_000}
            step={1}
            required
            {...form.register("credits", { valueAsNumber: true })}
          />
        </FormField>
      </div>
      <PlanDetailsFields value={details} onChange={setDetails} errors={detailProblems(form)} />
      <AllowedModelsField value={allowedModels} onChange={setAllowedModels} />
      {plan.groupId && <p className="muted">The plan&apos;s group is renamed with it.</p>}
      <ErrorAlert error={fieldProblem(form, "root") ?? update.error} />
      <div className="row">
        <Button variant="primary" type="submit" disabled={update.isPending}>
          Save plan
        </Button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      <ConfirmDialog
        open={confirming !== null}
        title={`Give ${shown} subscriber${many ? "s" : ""} ${credits} credits a month?`}
        confirmLabel="Change credits"
        destructive={false}
        onConfirm={() => {
          if (confirming) update.mutate(confirming);
          setConfirming(null);
        }}
        onClose={() => setConfirming(null)}
      >
        <p>
          Every active subscription to {plan.name} gets {credits} credits a month from now on (it had{" "}
          {plan.creditAllowance}); what they used this month stays used.
        </p>
      </ConfirmDialog>
    </Panel>
  );
}
