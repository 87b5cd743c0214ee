"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Pencil } from "lucide-react";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import {
  Button,
  ConfirmButton,
  ConfirmDialog,
  DataTable,
  ErrorAlert,
  FormField,
  LoadMore,
  notifyDone,
  PageHeader,
  Panel,
  useMay,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import type { TierPlan } from "@/schemas/provisioning/provisioning";
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
  const [name, setName] = useState("");
  const [credits, setCredits] = useState("100");
  const [withGroup, setWithGroup] = useState(false);
  const [allowedModels, setAllowedModels] = useState<string[] | null>(null);
  const [details, setDetails] = useState<PlanDetailsDraft>(() => planDetailsDraft());
  const [editing, setEditing] = useState<TierPlan | null>(null);
  // Plans are made, changed and archived by admins; others read them.
  const mayGrant = useMay("grant");
  const create = useMutation(
    trpc.tierPlans.create.mutationOptions({
      onSuccess: () => {
        setName("");
        setAllowedModels(null);
        setDetails(planDetailsDraft());
        void refresh();
      },
    }),
  );
  const archive = useMutation(trpc.tierPlans.archive.mutationOptions({ onSuccess: () => void refresh() }));
  const countOf = new Map(subscribers.data?.counts.map((row) => [row.tierPlanId, row]));
  const subscribersOf = (plan: TierPlan) => countOf.get(plan.id)?.subscribers ?? 0;

  function submit(event: FormEvent) {
    event.preventDefault();
    const shown = planDetailsInput(details);
    if (Number.isNaN(shown.priceAmount)) return;
    create.mutate({ name, creditAllowance: Number(credits), allowedModels, withGroup, ...shown });
  }

  return (
    <>
      <PageHeader
        title="Tier plans"
        description="Each plan an end user holds is its own subscription with its own monthly credits."
      />
      {!mayGrant && <p className="muted">Admins and owners create, edit and archive plans.</p>}
      {mayGrant && (
        <Panel label="Create a tier plan" onSubmit={submit}>
          <div className="row">
            <FormField label="Name">
              <input required value={name} onChange={(e) => setName(e.target.value)} />
            </FormField>
            <FormField label="Monthly credits">
              <input type="number" min={0} required value={credits} onChange={(e) => setCredits(e.target.value)} />
            </FormField>
          </div>
          <label className="inline">
            <input type="checkbox" checked={withGroup} onChange={(e) => setWithGroup(e.target.checked)} />
            Give the plan its own user group (membership follows the plan)
          </label>
          <PlanDetailsFields value={details} onChange={setDetails} />
          <AllowedModelsField value={allowedModels} onChange={setAllowedModels} />
          <ErrorAlert error={create.error} />
          <div>
            <Button variant="primary" type="submit" disabled={create.isPending}>
              Create plan
            </Button>
          </div>
        </Panel>
      )}
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
          rowKey={(plan) => plan.id}
          rowTestId="plan-row"
          cards
          empty={
            mayGrant
              ? "No plans yet: create one above, then choose it when you provision an end user."
              : "No plans yet: an admin creates them."
          }
          columns={[
            {
              key: "name",
              header: "Name",
              sortValue: (plan) => plan.name,
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
                  {subscriberCount(subscribersOf(plan), countOf.get(plan.id)?.atLeast ?? false)}
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

/** A subscriber count as people read it: "10,000+" when counting stopped at the cap. */
function subscriberCount(subscribers: number, atLeast: boolean): string {
  return `${subscribers.toLocaleString("en-US")}${atLeast ? "+" : ""}`;
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
  const shown = subscriberCount(subscribers, atLeast);
  const many = atLeast || subscribers !== 1;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState(plan.name);
  const [credits, setCredits] = useState(String(plan.creditAllowance));
  const [allowedModels, setAllowedModels] = useState<string[] | null>(plan.allowedModels);
  const [details, setDetails] = useState<PlanDetailsDraft>(() => planDetailsDraft(plan));
  const [confirming, setConfirming] = useState(false);
  const update = useMutation(
    trpc.tierPlans.update.mutationOptions({
      onSuccess: (result) => {
        void queryClient.invalidateQueries({ queryKey: trpc.tierPlans.pathKey() });
        notifyDone(`${result.tierPlan.name} saved.`);
        onDone();
      },
    }),
  );
  const creditsChanged = Number(credits) !== plan.creditAllowance;
  const said = planDetailsInput(details);
  const save = () =>
    update.mutate({ tierPlanId: plan.id, name: name.trim(), creditAllowance: Number(credits), allowedModels, ...said });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (Number.isNaN(said.priceAmount)) return;
    if (creditsChanged && subscribers > 0) setConfirming(true);
    else save();
  }

  return (
    <Panel title={<>Edit {plan.name}</>} headingId="edit-plan-title" onSubmit={submit}>
      <div className="row">
        <FormField label="Name">
          <input required maxLength={MAX_NAME_CHARS} value={name} onChange={(e) => setName(e.target.value)} />
        </FormField>
        <FormField
          label="Monthly credits"
          hint={`${shown} active subscriber${many ? "s get" : " gets"} new credits at once`}
        >
          <input
            type="number"
            min={0}
            max={1_000_000_000}
            step={1}
            required
            value={credits}
            onChange={(e) => setCredits(e.target.value)}
          />
        </FormField>
      </div>
      <PlanDetailsFields value={details} onChange={setDetails} />
      <AllowedModelsField value={allowedModels} onChange={setAllowedModels} />
      {plan.groupId && <p className="muted">The plan&apos;s group is renamed with it.</p>}
      <ErrorAlert error={update.error} />
      <div className="row">
        <Button variant="primary" type="submit" disabled={update.isPending}>
          Save plan
        </Button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Give ${shown} subscriber${many ? "s" : ""} ${credits} credits a month?`}
        confirmLabel="Change credits"
        destructive={false}
        onConfirm={() => {
          setConfirming(false);
          save();
        }}
        onClose={() => setConfirming(false)}
      >
        <p>
          Every active subscription to {plan.name} gets {credits} credits a month from now on (it had{" "}
          {plan.creditAllowance}); what they used this month stays used.
        </p>
      </ConfirmDialog>
    </Panel>
  );
}
