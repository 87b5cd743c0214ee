"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ConfirmButton } from "@/components/confirm-button";
import { CopyButton } from "@/components/copy-button";
import { errorMessage, useTRPC } from "@/lib/trpc";
import { ROLES, type Role } from "@/schemas/auth";

export default function MembersPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const members = useQuery(trpc.members.list.queryOptions());
  const isAdmin = me.data?.member.role === "admin" || me.data?.member.role === "owner";

  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [invited, setInvited] = useState<{ email: string; temporaryPassword: string | null } | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey() });
  const invite = useMutation(
    trpc.members.invite.mutationOptions({
      onSuccess: (result) => {
        setInvited({ email: result.member.email, temporaryPassword: result.temporaryPassword });
        setEmail("");
        void refresh();
      },
    }),
  );
  const changeRole = useMutation(trpc.members.changeRole.mutationOptions({ onSuccess: () => void refresh() }));
  const remove = useMutation(trpc.members.remove.mutationOptions({ onSuccess: () => void refresh() }));
  const failure = invite.error ?? changeRole.error ?? remove.error ?? members.error;

  function submit(event: FormEvent) {
    event.preventDefault();
    invite.mutate({ email, role });
  }

  return (
    <>
      <h1>Members</h1>
      {invited && (
        <div className="notice" role="status">
          <p>
            <strong>{invited.email}</strong> is now a member.
            {invited.temporaryPassword
              ? " Give them this temporary password to sign in with; it is shown only once."
              : " They sign in with the password they already have."}
          </p>
          {invited.temporaryPassword && (
            <div className="row">
              <code className="secret">{invited.temporaryPassword}</code>
              <CopyButton text={invited.temporaryPassword} />
            </div>
          )}
          <button type="button" onClick={() => setInvited(null)} style={{ marginTop: "0.5rem" }}>
            Done
          </button>
        </div>
      )}
      {failure && <p role="alert" className="error">{errorMessage(failure)}</p>}

      {isAdmin && (
        <form className="panel form" onSubmit={submit} aria-label="Invite a member">
          <h2 style={{ marginTop: 0 }}>Invite a member</h2>
          <div className="row">
            <label>
              Email
              <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
            </label>
            <label>
              Role
              <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <div>
            <button className="primary" type="submit" disabled={invite.isPending}>
              Invite
            </button>
          </div>
        </form>
      )}

      <div className="panel">
        <table>
          <thead>
            <tr>
              <th>Email</th>
              <th>Role</th>
              <th>Member since</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {members.data?.map((member) => (
              <tr key={member.id} data-testid="member-row">
                <td>
                  {member.email}
                  {member.id === me.data?.member.id && <span className="muted"> (you)</span>}
                </td>
                <td>
                  {isAdmin ? (
                    <select
                      aria-label={`Role of ${member.email}`}
                      value={member.role}
                      onChange={(e) => changeRole.mutate({ memberId: member.id, role: e.target.value as Role })}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  ) : (
                    member.role
                  )}
                </td>
                <td className="muted">{new Date(member.createdAt).toLocaleDateString()}</td>
                <td>{isAdmin && <ConfirmButton label="Remove" confirmLabel="Confirm remove" onConfirm={() => remove.mutate({ memberId: member.id })} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
