"use client";
// Inviting members by email and the invitations still open: resend (a new link; the old one
// stops working) or revoke. Nobody is handed a password: the invitee chooses their own.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import {
  Button,
  ConfirmButton,
  DataTable,
  ErrorAlert,
  fieldProblem,
  FormField,
  LoadMore,
  notifyDone,
  Panel,
  useCursorList,
  useFieldValue,
  useZodForm,
  When,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { CreateInvitationInput } from "@/schemas/identity/member";
import { MAX_EMAIL_CHARS } from "@/schemas/limits";
import { ROLE_NAMES } from "@/schemas/permissions";
import { RolePicker, RoleSummaries } from "./role-picker";

const PAGE = 50;

export function InvitationsPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useCursorList(
    (cursor) => trpc.invitations.list.queryOptions({ limit: PAGE, ...(cursor ? { cursor } : {}) }),
    (page) => page.invitations,
  );
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.invitations.list.pathKey() });
  const resend = useMutation(
    trpc.invitations.resend.mutationOptions({
      onSuccess: (invitation) => (notifyDone(`Invitation sent again to ${invitation.email}.`), void refresh()),
    }),
  );
  const revoke = useMutation(
    trpc.invitations.revoke.mutationOptions({
      onSuccess: (invitation) => (notifyDone(`Invitation to ${invitation.email} revoked.`), void refresh()),
    }),
  );

  return (
    <>
      <InvitePanel onInvited={() => void refresh()} />

      <Panel title="Open invitations" headingId="invitations-heading">
        <ErrorAlert error={list.error ?? resend.error ?? revoke.error} />
        <DataTable
          label="Open invitations table"
          rows={list.isLoaded ? list.items : undefined}
          rowTestId="invitation-row"
          empty="No open invitations."
          cards
          columns={[
            {
              key: "email",
              header: "Email",
              cell: (invitation) => <span style={{ overflowWrap: "anywhere" }}>{invitation.email}</span>,
            },
            { key: "role", header: "Role", cell: (invitation) => ROLE_NAMES[invitation.role] },
            {
              key: "status",
              header: "Status",
              nowrap: true,
              cell: (invitation) =>
                invitation.status === "expired" ? (
                  <span className="badge">expired</span>
                ) : (
                  <span className="muted">
                    until <When at={invitation.expiresAt} />
                  </span>
                ),
            },
            {
              key: "by",
              header: "Invited by",
              cell: (invitation) => <span className="muted">{invitation.invitedBy}</span>,
            },
            {
              key: "actions",
              header: <span className="visually-hidden">Actions</span>,
              nowrap: true,
              cell: (invitation) => (
                <span className="row" style={{ flexWrap: "nowrap" }}>
                  <button
                    type="button"
                    onClick={() => resend.mutate({ invitationId: invitation.id })}
                    disabled={resend.isPending}
                  >
                    Resend
                  </button>
                  <ConfirmButton
                    label="Revoke"
                    title={`Revoke the invitation to ${invitation.email}?`}
                    description="Its link stops working at once. You can invite them again later."
                    confirmLabel="Revoke"
                    onConfirm={() => revoke.mutate({ invitationId: invitation.id })}
                  />
                </span>
              ),
            },
          ]}
        />
        <LoadMore list={list} />
      </Panel>
    </>
  );
}

/** An invitation by email with a role; the invitee chooses their own password from the mail's link. */
function InvitePanel({ onInvited }: { onInvited: () => void }) {
  const trpc = useTRPC();
  const form = useZodForm(CreateInvitationInput, { defaultValues: { email: "", role: "member" } });
  const [role, setRole] = useFieldValue(form, "role");
  const create = useMutation(
    trpc.invitations.create.mutationOptions({
      onSuccess: (invitation) => {
        notifyDone(`Invitation sent to ${invitation.email}.`);
        form.resetField("email");
        onInvited();
      },
    }),
  );
  const submit = form.handleSubmit((input) => create.mutate(input));
  return (
    <Panel title="Invite a member" headingId="invite-heading" onSubmit={(event) => void submit(event)}>
      <p className="muted">They get an email with a link, valid 7 days, where they choose their own password.</p>
      <FormField label="Email" error={fieldProblem(form, "email")}>
        <input type="email" required maxLength={MAX_EMAIL_CHARS} {...form.register("email")} />
      </FormField>
      <RolePicker value={role ?? "member"} onChange={setRole} />
      <RoleSummaries />
      <ErrorAlert error={create.error} />
      <div>
        <Button variant="primary" type="submit" disabled={create.isPending}>
          {create.isPending ? "Sending…" : "Send invitation"}
        </Button>
      </div>
    </Panel>
  );
}
