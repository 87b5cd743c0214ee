"use client";
// An end user's requests for more credits and the admin's answer: bonus credits on one of their
// active subscriptions (which closes the open requests), or dismissing a request.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useWatch } from "react-hook-form";
import {
  GrantBonusCreditsInput,
  MAX_BONUS_CREDITS_PER_GRANT,
  MAX_CREDIT_REQUEST_CHARS,
} from "@/schemas/provisioning/credits";
import type { SubscriptionDetail } from "@/schemas/provisioning/provisioning";
import {
  Button,
  ErrorAlert,
  fieldProblem,
  FormField,
  notifyDone,
  Panel,
  Select,
  useMay,
  useZodForm,
  When,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";

/** The grant form's fields of the API's input (the end user is the page's). */
const BonusFields = GrantBonusCreditsInput.omit({ endUserId: true });

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
  const dismiss = useMutation(trpc.endUsers.dismissCreditRequest.mutationOptions({ onSuccess: () => void refresh() }));
  const open = requests.data?.creditRequests.filter((r) => r.status === "open") ?? [];

  if (!mayGrant && open.length === 0) return null;
  return (
    <Panel title="Credits" headingId="bonus-credits-title">
      <ErrorAlert error={requests.error ?? dismiss.error} />
      {open.length > 0 ? (
        <ul className="credit-requests" aria-label="Open requests for more credits">
          {open.map((request) => (
            <li key={request.id} data-testid="credit-request">
              <strong>Asked for more credits</strong>{" "}
              <span className="muted">
                <When at={request.createdAt} />
              </span>
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
          <BonusCreditsForm endUserId={endUserId} active={active} onGranted={() => void refresh()} />
        ))}
    </Panel>
  );
}

/** Bonus credits on one of the end user's active subscriptions (the first unless chosen). */
function BonusCreditsForm({
  endUserId,
  active,
  onGranted,
}: {
  endUserId: string;
  active: SubscriptionDetail[];
  onGranted: () => void;
}) {
  const trpc = useTRPC();
  const form = useZodForm(BonusFields, {
    defaultValues: { tierPlanId: active[0]!.tierPlanId, credits: 10, reason: "" },
  });
  const chosen = useWatch({ control: form.control, name: "tierPlanId" });
  const grant = useMutation(
    trpc.endUsers.grantBonusCredits.mutationOptions({
      onSuccess: ({ subscription }, { credits }) => {
        notifyDone(`${credits} bonus credits added to ${subscription.tierPlanName}.`);
        form.resetField("reason");
        onGranted();
      },
    }),
  );
  const submit = form.handleSubmit(({ reason, ...grantInput }) =>
    grant.mutate({ endUserId, ...grantInput, ...(reason ? { reason } : {}) }),
  );
  return (
    <>
      <ErrorAlert error={grant.error} />
      <form
        onSubmit={(event) => void submit(event)}
        className="row"
        style={{ alignItems: "flex-end", flexWrap: "wrap" }}
      >
        {active.length > 1 && (
          <FormField label="Subscription">
            <Select
              {...form.register("tierPlanId")}
              options={active.map((s) => ({ value: s.tierPlanId, label: s.tierPlanName }))}
            />
          </FormField>
        )}
        <FormField
          label="Bonus credits"
          hint={`Until ${active.find((s) => s.tierPlanId === chosen)?.tierPlanName ?? "the plan"} resets`}
          error={fieldProblem(form, "credits")}
        >
          <input
            type="number"
            min={1}
            max={MAX_BONUS_CREDITS_PER_GRANT}
            step={1}
            required
            {...form.register("credits", { valueAsNumber: true })}
          />
        </FormField>
        <FormField label="Reason (optional)" error={fieldProblem(form, "reason")}>
          <input maxLength={MAX_CREDIT_REQUEST_CHARS} {...form.register("reason")} />
        </FormField>
        <button type="submit" disabled={grant.isPending}>
          Give bonus credits
        </button>
      </form>
    </>
  );
}
