"use client";
// An end user's requests for more credits and the admin's answer: bonus credits on one of their
// active subscriptions (which closes the open requests), or dismissing a request.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { MAX_BONUS_CREDITS_PER_GRANT, MAX_CREDIT_REQUEST_CHARS } from "@/schemas/provisioning/credits";
import type { SubscriptionDetail } from "@/schemas/provisioning/provisioning";
import { Button, ErrorAlert, FormField, notifyDone, Panel, Select, useMay } from "@/components/console";
import { useTRPC } from "@/lib/trpc";

export function BonusCreditsPanel({
  endUserId,
  subscriptions,
}: {
  endUserId: string;
  subscriptions: SubscriptionDetail[];
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mayGrant = useMay("grant");
  const requests = useQuery(trpc.endUsers.creditRequests.queryOptions({ endUserId }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.endUsers.pathKey() });
  const active = subscriptions.filter((s) => s.status === "active");
  const [tierPlanId, setTierPlanId] = useState("");
  const [credits, setCredits] = useState("10");
  const [reason, setReason] = useState("");
  const grant = useMutation(
    trpc.endUsers.grantBonusCredits.mutationOptions({
      onSuccess: ({ subscription }) => {
        notifyDone(`${credits} bonus credits added to ${subscription.tierPlanName}.`);
        setReason("");
        void refresh();
      },
    }),
  );
  const dismiss = useMutation(trpc.endUsers.dismissCreditRequest.mutationOptions({ onSuccess: () => void refresh() }));
  const open = requests.data?.creditRequests.filter((r) => r.status === "open") ?? [];
  const chosen = tierPlanId || active[0]?.tierPlanId || "";

  function submit(event: FormEvent) {
    event.preventDefault();
    grant.mutate({
      endUserId,
      tierPlanId: chosen,
      credits: Number(credits),
      ...(reason.trim() ? { reason: reason.trim() } : {}),
    });
  }

  if (!mayGrant && open.length === 0) return null;
  return (
    <Panel title="Credits" headingId="bonus-credits-title">
      <ErrorAlert error={requests.error ?? grant.error ?? dismiss.error} />
      {open.length > 0 ? (
        <ul className="credit-requests" aria-label="Open requests for more credits">
          {open.map((request) => (
            <li key={request.id} data-testid="credit-request">
              <strong>Asked for more credits</strong>{" "}
              <span className="muted">{new Date(request.createdAt).toLocaleString()}</span>
              {request.message && <p style={{ margin: "0.25rem 0" }}>“{request.message}”</p>}
              {mayGrant && (
                <Button
                  variant="secondary"
                  onClick={() => dismiss.mutate({ endUserId, creditRequestId: request.id })}
                  disabled={dismiss.isPending}
                >
                  Dismiss
                </Button>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No open requests for more credits.</p>
      )}
      {mayGrant &&
        (active.length === 0 ? (
          <p className="muted">Bonus credits go to an active subscription: add a plan first.</p>
        ) : (
          <form onSubmit={submit} className="row" style={{ alignItems: "flex-end", flexWrap: "wrap" }}>
            {active.length > 1 && (
              <FormField label="Subscription">
                <Select
                  value={chosen}
                  onChange={(e) => setTierPlanId(e.target.value)}
                  options={active.map((s) => ({ value: s.tierPlanId, label: s.tierPlanName }))}
                />
              </FormField>
            )}
            <FormField
              label="Bonus credits"
              hint={`Until ${active.find((s) => s.tierPlanId === chosen)?.tierPlanName ?? "the plan"} resets`}
            >
              <input
                type="number"
                min={1}
                max={MAX_BONUS_CREDITS_PER_GRANT}
                step={1}
                required
                value={credits}
                onChange={(e) => setCredits(e.target.value)}
              />
            </FormField>
            <FormField label="Reason (optional)">
              <input value={reason} maxLength={MAX_CREDIT_REQUEST_CHARS} onChange={(e) => setReason(e.target.value)} />
            </FormField>
            <button type="submit" disabled={grant.isPending || !chosen}>
              Give bonus credits
            </button>
          </form>
        ))}
    </Panel>
  );
}
