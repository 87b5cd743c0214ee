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
  When,
} from "@/components/console";
import { InvitationsPanel } from "@/components/members/invitations-panel";
import { useTRPC } from "@/lib/trpc";
import { ROLES, type Role } from "@/schemas/identity/auth";
import type { Member } from "@/schemas/identity/member";
import { ROLE_NAMES, ROLE_SUMMARIES } from "@/schemas/permissions";

export default function MembersPage() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const members = useQuery(trpc.members.list.queryOptions());
  const mayManageMembers = useMay("members");

  const [roleChange, setRoleChange] = useState<{ member: Member; role: Role } | null>(null);

  const { changeRole, resetPassword, remove, confirmRoleChange } = useMemberChanges();

  return (
    <>
      <PageHeader title="Members" description="People who sign in to this console, and what their role lets them do." />
      <ErrorAlert error={changeRole.error ?? resetPassword.error ?? remove.error ?? members.error} />

      {mayManageMembers && <InvitationsPanel />}

      <Panel title="Current members" headingId="members-heading">
        <MembersTable
          members={members.data}
          myId={me.data?.member.id}
          mayManage={mayManageMembers}
          onRole={(member, role) => setRoleChange({ member, role })}
          onResetPassword={(memberId) => resetPassword.mutate({ memberId })}
          onRemove={(memberId) => remove.mutate({ memberId })}
        />
      </Panel>
      <RoleChangeDialog
        change={roleChange}
        onConfirm={() => roleChange && confirmRoleChange(roleChange)}
        onClose={() => setRoleChange(null)}
      />
    </>
  );
}

/** Changing a role (undoable from its toast), resetting a password and removing a member. */
function useMemberChanges() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
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

  return { changeRole, resetPassword, remove, confirmRoleChange };
}

/** Reset a member's password or remove them, each after a confirm. */
function MemberActions({
  email,
  onResetPassword,
  onRemove,
}: {
  email: string;
  onResetPassword: () => void;
  onRemove: () => void;
}) {
  return (
    <span className="row" style={{ flexWrap: "nowrap" }}>
      <ConfirmButton
        label="Reset password"
        destructive={false}
        title={`Reset ${email}'s password?`}
        description="Their password here stops working and they are signed out; they get an email with a link, valid a day, to choose a new one."
        onConfirm={onResetPassword}
      />
      <ConfirmButton
        label="Remove"
        title={`Remove ${email} from the organization?`}
        description="Their personal keys stop working and their sessions end."
        onConfirm={onRemove}
      />
    </span>
  );
}

/** The confirm of a role change, with what the new role lets them do. */
function RoleChangeDialog({
  change,
  onConfirm,
  onClose,
}: {
  change: { member: Member; role: Role } | null;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <ConfirmDialog
      open={!!change}
      title={change ? `Make ${change.member.email} ${change.role}?` : ""}
      confirmLabel="Change role"
      destructive={false}
      onConfirm={onConfirm}
      onClose={onClose}
    >
      {change && (
        <>
          <p>
            Their role changes from {change.member.role} to {change.role} at once, for the console and their personal
            keys.
          </p>
          <p className="muted" data-testid="role-change-summary">
            {ROLE_NAMES[change.role]}: {ROLE_SUMMARIES[change.role]}
          </p>
        </>
      )}
    </ConfirmDialog>
  );
}

/** The members, by email: their role (a select for those who manage members), since when, and actions. */
function MembersTable({
  members,
  myId,
  mayManage,
  onRole,
  onResetPassword,
  onRemove,
}: {
  members: Member[] | undefined;
  myId: string | undefined;
  mayManage: boolean;
  onRole: (member: Member, role: Role) => void;
  onResetPassword: (memberId: string) => void;
  onRemove: (memberId: string) => void;
}) {
  return (
    <DataTable
      label="Members"
      rows={members}
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
              {member.id === myId && <span className="muted"> (you)</span>}
            </>
          ),
        },
        {
          key: "role",
          header: "Role",
          sortValue: (member) => ROLES.indexOf(member.role),
          cell: (member) =>
            mayManage && member.id !== myId ? (
              <Select
                aria-label={`Role of ${member.email}`}
                value={member.role}
                onChange={(e) => onRole(member, e.target.value as Role)}
                options={ROLES.map((r) => ({ value: r, label: ROLE_NAMES[r] }))}
              />
            ) : (
              ROLE_NAMES[member.role]
            ),
        },
        {
          key: "since",
          header: "Member since",
          nowrap: true,
          sortValue: (member) => member.createdAt,
          cell: (member) => (
            <span className="muted">
              <When at={member.createdAt} day />
            </span>
          ),
        },
        {
          key: "actions",
          header: <span className="visually-hidden">Actions</span>,
          nowrap: true,
          cell: (member) =>
            member.id !== myId && (
              <MemberActions
                email={member.email}
                onResetPassword={() => onResetPassword(member.id)}
                onRemove={() => onRemove(member.id)}
              />
            ),
        },
      ]}
    />
  );
}
