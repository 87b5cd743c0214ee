"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, useRouter } from "next/navigation";
import { ConfirmButton, ErrorAlert, notifyDone, useMay } from "@/components/console";
import { EntityName } from "@/components/entity-picker";
import { useTRPC } from "@/lib/trpc";
import { PageHeader } from "@/components/console";
import { GrantAppForm } from "@/components/provisioning/grant-app-form";
import { EndUserPicker } from "@/components/provisioning/end-user-picker";
import { GroupPortals } from "@/components/provisioning/group-portals";

export default function GroupPage() {
  const { groupId } = useParams<{ groupId: string }>();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const group = useQuery(trpc.userGroups.get.queryOptions({ groupId }));
  const members = useQuery(trpc.userGroups.members.queryOptions({ groupId }));
  const grants = useQuery(trpc.userGroups.grants.queryOptions({ groupId }));
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.userGroups.get.queryKey({ groupId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.userGroups.members.queryKey({ groupId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.userGroups.grants.queryKey({ groupId }) }),
    ]);

  const addMember = useMutation(trpc.userGroups.addMember.mutationOptions({ onSuccess: () => void refresh() }));
  const removeMember = useMutation(trpc.userGroups.removeMember.mutationOptions({ onSuccess: () => void refresh() }));
  const addGrant = useMutation(trpc.userGroups.addGrant.mutationOptions({ onSuccess: () => void refresh() }));
  const removeGrant = useMutation(trpc.userGroups.removeGrant.mutationOptions({ onSuccess: () => void refresh() }));
  const remove = useMutation(trpc.userGroups.delete.mutationOptions({ onSuccess: () => router.replace("/groups") }));
  const failure = addMember.error ?? removeMember.error ?? addGrant.error ?? removeGrant.error ?? remove.error;
  // Removing a member or a grant, and deleting the group, are for admins.
  const mayDelete = useMay("delete");

  if (group.error) return <ErrorAlert error={group.error} />;
  const data = group.data?.userGroup;
  if (!data) return <p className="muted">Loading…</p>;
  const isPlanGroup = data.planId !== null;

  function addEndUser(endUser: { id: string; email: string }) {
    addMember.mutate(
      { groupId, endUserId: endUser.id },
      {
        onSuccess: (result) =>
          notifyDone(
            members.data?.some((member) => member.endUserId === result.member.endUserId)
              ? `${endUser.email} is already a member.`
              : `${endUser.email} added.`,
          ),
      },
    );
  }

  function grantApp(appId: string, deploymentId: string | undefined) {
    addGrant.mutate({ groupId, targetKind: "app", targetId: appId, ...(deploymentId ? { deploymentId } : {}) });
  }

  return (
    <>
      <PageHeader title={data.name} back={{ href: "/groups", label: "User groups" }}>
        {isPlanGroup && <span className="badge">Plan group</span>}
      </PageHeader>
      {data.description && <p className="muted">{data.description}</p>}
      {isPlanGroup && (
        <p className="notice">
          This group belongs to a tier plan: its members are the plan&apos;s subscribers, so membership is read-only
          here.
        </p>
      )}
      <ErrorAlert error={failure} />

      <div className="panel">
        <h2>Members ({data.memberCount})</h2>
        {members.data?.length === 0 && (
          <p className="muted">
            {isPlanGroup
              ? "No members yet: end users join this group by holding its plan."
              : "No members yet: add one by email below."}
          </p>
        )}
        <table>
          <tbody>
            {members.data?.map((member) => (
              <tr key={member.endUserId}>
                <td>
                  <Link href={`/end-users/${member.endUserId}`}>{member.email}</Link>
                </td>
                <td className="muted">added {new Date(member.addedAt).toLocaleDateString()}</td>
                <td>
                  {mayDelete && !isPlanGroup && (
                    <ConfirmButton
                      label="Remove"
                      title="Remove this end user from the group?"
                      confirmLabel="Remove"
                      onConfirm={() => removeMember.mutate({ groupId, endUserId: member.endUserId })}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {!isPlanGroup && (
          <div className="row" style={{ marginTop: "0.75rem" }}>
            <EndUserPicker label="Add a member by email" onPick={addEndUser} />
          </div>
        )}
      </div>

      <div className="panel">
        <h2>Grants</h2>
        {grants.data?.length === 0 && (
          <p className="muted">No grants yet: the apps granted here open for every member.</p>
        )}
        <table>
          <tbody>
            {grants.data?.map((grant) => (
              <tr key={grant.id}>
                <td>
                  <EntityName kind="app" id={grant.targetId} />
                </td>
                <td>{grant.deploymentId ? <EntityName kind="portal" id={grant.deploymentId} /> : "any portal"}</td>
                <td>
                  {mayDelete && (
                    <ConfirmButton
                      label="Remove"
                      title="Remove this grant?"
                      confirmLabel="Remove"
                      onConfirm={() => removeGrant.mutate({ groupId, grantId: grant.id })}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <GrantAppForm onGrant={grantApp} />
      </div>

      <div className="panel">
        <h2>Portal admissions</h2>
        <GroupPortals groupId={groupId} groupName={data.name} />
      </div>

      {!isPlanGroup && (
        <div className="row">
          <ConfirmButton
            label="Delete group"
            title="Delete this group?"
            description="Its members keep their own access; what the group granted ends."
            confirmLabel="Delete for good"
            onConfirm={() => remove.mutate({ groupId })}
            needs="delete"
          />
        </div>
      )}
    </>
  );
}
