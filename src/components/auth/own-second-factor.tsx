"use client";
// The account page's two-step verification: turn it on with an authenticator app, see how many
// recovery codes are left, turn it off with a current code (unless the organization requires it).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Button, ErrorAlert, fieldProblem, FormField, notifyDone, Panel, useZodForm, When } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { MfaCodeInput } from "@/schemas/identity/mfa";
import { MAX_MFA_CODE_CHARS } from "@/schemas/limits";
import { RecoveryCodes, TotpSetup } from "./second-factor";

export function OwnSecondFactorPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.mfa.status.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.mfa.status.queryKey() });
  const start = useMutation(trpc.mfa.startEnrollment.mutationOptions());
  const confirm = useMutation(trpc.mfa.confirmEnrollment.mutationOptions());
  const removal = useZodForm(MfaCodeInput, { defaultValues: { code: "" } });
  const remove = useMutation(
    trpc.mfa.remove.mutationOptions({
      onSuccess: () => {
        removal.reset();
        notifyDone("Two-step verification is off.");
        void refresh();
      },
    }),
  );

  const submitRemoval = removal.handleSubmit((input) => remove.mutate(input));

  const current = status.data;
  let body;
  if (confirm.data)
    body = (
      <RecoveryCodes
        codes={confirm.data.recoveryCodes}
        doneLabel="Done"
        onDone={() => {
          confirm.reset();
          start.reset();
          void refresh();
        }}
      />
    );
  else if (!current) body = <ErrorAlert error={status.error} />;
  else if (current.enrolled)
    body = (
      <>
        <p data-testid="mfa-state">
          <strong>On</strong> since <When at={current.enrolledAt!} day /> · {current.recoveryCodesLeft} of 10 recovery
          codes left.
        </p>
        {current.required ? (
          <p className="muted">Your organization requires it. If you lose your phone, an owner can reset it.</p>
        ) : (
          <form
            className="form"
            onSubmit={(event) => void submitRemoval(event)}
            aria-label="Turn two-step verification off"
          >
            <FormField
              label="Code to turn it off"
              hint="A code from your authenticator app, or a recovery code."
              error={fieldProblem(removal, "code")}
            >
              <input
                required
                autoComplete="one-time-code"
                maxLength={MAX_MFA_CODE_CHARS}
                {...removal.register("code")}
              />
            </FormField>
            <ErrorAlert error={remove.error} />
            <div>
              <button type="submit" disabled={remove.isPending}>
                Turn off
              </button>
            </div>
          </form>
        )}
      </>
    );
  else if (start.data)
    body = (
      <TotpSetup
        enrollment={start.data}
        pending={confirm.isPending}
        error={confirm.error}
        onConfirm={(code) => confirm.mutate({ code })}
      />
    );
  else
    body = (
      <>
        <p data-testid="mfa-state">
          <strong>Off.</strong> Add a code from an authenticator app to your password sign-in.
          {current.required && " Your organization requires it."}
        </p>
        <ErrorAlert error={start.error} />
        <div>
          <Button variant="primary" onClick={() => start.mutate()} disabled={start.isPending}>
            Set up an authenticator app
          </Button>
        </div>
      </>
    );

  return (
    <Panel title="Two-step verification" headingId="two-step">
      {body}
    </Panel>
  );
}
