"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import {
  ConfirmButton,
  ConfirmDialog,
  DataTable,
  ErrorAlert,
  notifyDone,
  PageHeader,
  Panel,
  Select,
  useMay,
} from "@/components/console";
import { InvitationsPanel } from "@/components/members/invitations-panel";
import { useTRPC } from "@/lib/trpc";
import { ROLES, type Role } from "@/schemas/identity/auth";
import type { Member } from "@/schemas/identity/member";
import { ROLE_SUMMARIES } from "@/schemas/permissions";

export default function MembersPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const members = useQuery(trpc.members.list.queryOptions());
  const mayManageMembers = useMay("members");

  const [roleChange, setRoleChange] = useState<{ member: Member; role: Role } | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey() });
  const changeRole = useMutation(trpc.members.changeRole.mutationOptions({ onSuccess: () => void refresh() }));
  const resetPassword = useMutation(
    trpc.members.resetPassword.mutationOptions({
      onSuccess: ({ member }) => notifyDone(`A link to choose a new password was sent to ${member.email}.`),
    }),
  );
  const remove = useMutation(
    trpc.members.remove.mutationOptions({
      onSuccess: (member) => {
        notifyDone(`${member.email} was removed.`);
        void refresh();
      },
    }),
  );

  function confirmRoleChange({ member, role: newRole }: { member: Member; role: Role }) {
    const previous = member.role;
    changeRole.mutate(
      { memberId: member.id, role: newRole },
      {
        onSuccess: () =>
          notifyDone(`${member.email} is now ${newRole}.`, () =>
            changeRole.mutate({ memberId: member.id, role: previous }, { onSuccess: () => void refresh() }),
          ),
      },
    );
  }

  return (
    <>
      <PageHeader title="Members" description="People who sign in to this console, and what their role lets them do." />
      <ErrorAlert error={changeRole.error ?? resetPassword.error ?? remove.error ?? members.error} />

      {mayManageMembers && <InvitationsPanel />}

      <Panel title="Current members" headingId="members-heading">
        <DataTable
          label="Members"
          rows={members.data}
          rowKey={(member) => member.id}
          rowTestId="member-row"
          empty="No members."
          cards
          initialSort={{ key: "email", direction: "ascending" }}
          columns={[
            {
              key: "email",
              header: "Email",
              sortValue: (member) => member.email,
              cell: (member) => (
                <>
                  {member.email}
                  {member.id === me.data?.member.id && <span className="muted"> (you)</span>}
                </>
              ),
            },
            {
              key: "role",
              header: "Role",
              sortValue: (member) => ROLES.indexOf(member.role),
              cell: (member) =>
                mayManageMembers && member.id !== me.data?.member.id ? (
                  <Select
                    aria-label={`Role of ${member.email}`}
                    value={member.role}
                    onChange={(e) => setRoleChange({ member, role: e.target.value as Role })}
                    options={ROLES.map((r) => ({ value: r, label: r }))}
                  />
                ) : (
                  member.role
                ),
            },
            {
              key: "since",
              header: "Member since",
              nowrap: true,
              sortValue: (member) => member.createdAt,
              cell: (member) => <span className="muted">{new Date(member.createdAt).toLocaleDateString()}</span>,
            },
            {
              key: "actions",
              header: <span className="visually-hidden">Actions</span>,
              nowrap: true,
              cell: (member) =>
                mayManageMembers &&
                member.id !== me.data?.member.id && (
                  <span className="row" style={{ flexWrap: "nowrap" }}>
                    <ConfirmButton
                      label="Reset password"
                      destructive={false}
                      title={`Reset ${member.email}'s password?`}
                      description="Their password here stops working and they are signed out; they get an email with a link, valid a day, to choose a new one."
                      onConfirm={() => resetPassword.mutate({ memberId: member.id })}
                    />
                    <ConfirmButton
                      label="Remove"
                      title={`Remove ${member.email} from the organization?`}
                      description="Their personal keys stop working and their sessions end."
                      onConfirm={() => remove.mutate({ memberId: member.id })}
                    />
                  </span>
                ),
            },
          ]}
        />
      </Panel>
      <ConfirmDialog
        open={!!roleChange}
        title={roleChange ? `Make ${roleChange.member.email} ${roleChange.role}?` : ""}
        confirmLabel="Change role"
        destructive={false}
        onConfirm={() => roleChange && confirmRoleChange(roleChange)}
        onClose={() => setRoleChange(null)}
      >
        {roleChange && (
          <>
            <p>
              Their role changes from {roleChange.member.role} to {roleChange.role} at once, for the console and their
              personal keys.
            </p>
            <p className="muted" data-testid="role-change-summary">
              {roleChange.role}: {ROLE_SUMMARIES[roleChange.role]}
            </p>
          </>
        )}
      </ConfirmDialog>
    </>
  );
}
