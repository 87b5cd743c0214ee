"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { z } from "zod";
import { OwnSecondFactorPanel } from "@/components/auth/own-second-factor";
import {
  Button,
  ErrorAlert,
  fieldProblem,
  FormField,
  notifyDone,
  PageHeader,
  Panel,
  useZodForm,
} from "@/components/console";
import { NotificationEmailsForm } from "@/components/console/notifications";
import { useTRPC } from "@/lib/trpc";
import { ChangePasswordInput } from "@/schemas/identity/member";
import { MAX_PASSWORD_CHARS } from "@/schemas/limits";

/** The API's input, and the new password typed twice alike. */
const ChangePasswordForm = ChangePasswordInput.extend({ repeatedPassword: z.string() }).refine(
  (form) => form.newPassword === form.repeatedPassword,
  { path: ["repeatedPassword"], message: "The two new passwords differ." },
);

/** The problem the server named for one field of an invalid_request, if any. */
function problemFor(error: unknown, path: string): string | undefined {
  const data = (error as { data?: { appError?: { problems?: { path: string; message: string }[] } } } | null)?.data;
  return data?.appError?.problems?.find((problem) => problem.path === path)?.message;
}

export default function AccountPage() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const form = useZodForm(ChangePasswordForm, {
    defaultValues: { currentPassword: "", newPassword: "", repeatedPassword: "" },
  });
  const change = useMutation(
    trpc.auth.changePassword.mutationOptions({
      onSuccess: () => {
        form.reset();
        notifyDone("Password changed. Your other sessions have been signed out.");
      },
    }),
  );

  const submit = form.handleSubmit(({ currentPassword, newPassword }) =>
    change.mutate({ currentPassword, newPassword }),
  );

  const currentError = fieldProblem(form, "currentPassword") ?? problemFor(change.error, "currentPassword");
  const newError = fieldProblem(form, "newPassword") ?? problemFor(change.error, "newPassword");
  const fieldErrorShown = !!(currentError || newError);

  return (
    <>
      <PageHeader
        title="Your account"
        description={me.data && `${me.data.member.email} · ${me.data.member.role} of ${me.data.organization.name}`}
      />
      <Panel title="Change your password" headingId="change-password" onSubmit={(event) => void submit(event)}>
        <FormField label="Current password" error={currentError}>
          <input type="password" required autoComplete="current-password" {...form.register("currentPassword")} />
        </FormField>
        <FormField
          label="New password"
          hint="At least 10 characters. Your sessions on other devices end."
          error={newError}
        >
          <input
            type="password"
            required
            minLength={10}
            maxLength={MAX_PASSWORD_CHARS}
            autoComplete="new-password"
            {...form.register("newPassword")}
          />
        </FormField>
        <FormField label="Repeat the new password" error={fieldProblem(form, "repeatedPassword")}>
          <input type="password" required autoComplete="new-password" {...form.register("repeatedPassword")} />
        </FormField>
        {change.error && !fieldErrorShown && <ErrorAlert error={change.error} />}
        {fieldErrorShown && <ErrorAlert error={change.error} announceOnly />}
        <div>
          <Button variant="primary" type="submit" disabled={change.isPending}>
            Change password
          </Button>
        </div>
      </Panel>
      <OwnSecondFactorPanel />
      <NotificationEmailsForm />
    </>
  );
}
