"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ConfirmButton } from "@/components/console";
import { errorMessage, useTRPC } from "@/lib/trpc";
import { PageHeader } from "@/components/console";

export default function PlansPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const plans = useQuery(trpc.tierPlans.list.queryOptions({ limit: 200 }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.tierPlans.list.queryKey() });
  const [name, setName] = useState("");
  const [credits, setCredits] = useState("100");
  const [withGroup, setWithGroup] = useState(false);
  const create = useMutation(
    trpc.tierPlans.create.mutationOptions({
      onSuccess: () => {
        setName("");
        void refresh();
      },
    }),
  );
  const archive = useMutation(trpc.tierPlans.archive.mutationOptions({ onSuccess: () => void refresh() }));

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ name, creditAllowance: Number(credits), withGroup });
  }

  return (
    <>
      <PageHeader title="Tier plans" />
      <form className="panel form" onSubmit={submit} aria-label="Create a tier plan">
        <div className="row">
          <label>
            Name
            <input required value={name} onChange={(e) => setName(e.target.value)} />
          </label>
          <label>
            Monthly credits
            <input type="number" min={0} required value={credits} onChange={(e) => setCredits(e.target.value)} />
          </label>
        </div>
        <label className="inline">
          <input type="checkbox" checked={withGroup} onChange={(e) => setWithGroup(e.target.checked)} />
          Give the plan its own user group (membership follows the plan)
        </label>
        {create.error && (
          <p role="alert" className="error">
            {errorMessage(create.error)}
          </p>
        )}
        <div>
          <button className="primary" type="submit" disabled={create.isPending}>
            Create plan
          </button>
        </div>
      </form>
      <div className="panel">
        {archive.error && (
          <p role="alert" className="error">
            {errorMessage(archive.error)}
          </p>
        )}
        {plans.data?.tierPlans.length === 0 && <p className="muted">No plans yet.</p>}
        {plans.data && plans.data.tierPlans.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Credits</th>
                <th>Plan group</th>
                <th>Status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {plans.data.tierPlans.map((plan) => (
                <tr key={plan.id}>
                  <td>{plan.name}</td>
                  <td>{plan.creditAllowance}</td>
                  <td>{plan.groupId ? <a href={`/groups/${plan.groupId}`}>yes</a> : "—"}</td>
                  <td>{plan.archived ? <span className="badge revoked">Archived</span> : <span className="badge">Live</span>}</td>
                  <td>
                    {!plan.archived && (
                      <ConfirmButton label="Archive" title={`Archive ${plan.name}?`} confirmLabel="Archive" onConfirm={() => archive.mutate({ tierPlanId: plan.id })} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}
