"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { OwnSecondFactorPanel } from "@/components/auth/own-second-factor";
import { Button, ErrorAlert, FormField, notifyDone, PageHeader, Panel } from "@/components/console";
import { NotificationEmailsForm } from "@/components/console/notifications";
import { useTRPC } from "@/lib/trpc";
import { MAX_PASSWORD_CHARS } from "@/schemas/limits";

/** The problem the server named for one field of an invalid_request, if any. */
function problemFor(error: unknown, path: string): string | undefined {
  const data = (error as { data?: { appError?: { problems?: { path: string; message: string }[] } } } | null)?.data;
  return data?.appError?.problems?.find((problem) => problem.path === path)?.message;
}

export default function AccountPage() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const [currentPassword, setCurrentPassword] = useState("");
  const [newPassword, setNewPassword] = useState("");
  const [repeated, setRepeated] = useState("");
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation(
    trpc.auth.changePassword.mutationOptions({
      onSuccess: () => {
        setCurrentPassword("");
        setNewPassword("");
        setRepeated("");
        notifyDone("Password changed. Your other sessions have been signed out.");
      },
    }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    setMismatch(newPassword !== repeated);
    if (newPassword === repeated) change.mutate({ currentPassword, newPassword });
  }

  const currentError = problemFor(change.error, "currentPassword");
  const newError = problemFor(change.error, "newPassword");
  const fieldErrorShown = !!(currentError || newError);

  return (
    <>
      <PageHeader
        title="Your account"
        description={me.data && `${me.data.member.email} · ${me.data.member.role} of ${me.data.organization.name}`}
      />
      <Panel title="Change your password" headingId="change-password" onSubmit={submit}>
        <FormField label="Current password" error={currentError}>
          <input
            type="password"
            required
            autoComplete="current-password"
            value={currentPassword}
            onChange={(e) => setCurrentPassword(e.target.value)}
          />
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
            value={newPassword}
            onChange={(e) => setNewPassword(e.target.value)}
          />
        </FormField>
        <FormField label="Repeat the new password" error={mismatch ? "The two new passwords differ." : undefined}>
          <input
            type="password"
            required
            autoComplete="new-password"
            value={repeated}
            onChange={(e) => setRepeated(e.target.value)}
          />
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
