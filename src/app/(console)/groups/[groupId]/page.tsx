"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, useRouter } from "next/navigation";
import {
  ConfirmButton,
  DataTable,
  ErrorAlert,
  LoadMore,
  notifyDone,
  PageFailed,
  PageHeader,
  PageLoading,
  Panel,
  useCursorList,
  useMay,
  When,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { GrantsPanel } from "@/components/provisioning/grants-panel";
import { EndUserPicker } from "@/components/provisioning/end-user-picker";
import { GroupPortals } from "@/components/provisioning/group-portals";

const BACK = { href: "/groups", label: "User groups" };

export default function GroupPage() {
  const { groupId } = useParams<{ groupId: string }>();
  const { group, members, grants, removeMember, removeGrant, remove, failure, addEndUser, grantApp } =
    useGroupPage(groupId);
  // Removing a member or a grant, and deleting the group, are for admins.
  const mayDelete = useMay("delete");

  if (group.error) return <PageFailed title="User group" back={BACK} error={group.error} />;
  const data = group.data?.userGroup;
  if (!data) return <PageLoading title="User group" />;
  const isPlanGroup = data.planId !== null;

  return (
    <>
      <PageHeader title={data.name} back={BACK}>
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

      <GroupMembers
        memberCount={data.memberCount}
        members={members}
        isPlanGroup={isPlanGroup}
        mayRemove={mayDelete}
        onAdd={addEndUser}
        onRemove={(endUserId) => removeMember.mutate({ groupId, endUserId })}
      />

      <GrantsPanel
        grants={grants.data}
        empty="No grants yet: the apps granted here open for every member."
        targetHeader="App"
        anyPortal="any portal"
        actionsHeader=""
        mayRemove={mayDelete}
        onRemove={(grantId) => removeGrant.mutate({ groupId, grantId })}
        onGrant={grantApp}
      />

      <Panel title="Portal admissions">
        <GroupPortals groupId={groupId} groupName={data.name} />
      </Panel>

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

/** The group, its members a page at a time, its grants, and what changes them (each refreshing all three). */
function useGroupPage(groupId: string) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const group = useQuery(trpc.userGroups.get.queryOptions({ groupId }));
  // A plan group may hold most of the organization: its members come a page at a time.
  const members = useCursorList(
    (cursor) => trpc.userGroups.members.queryOptions({ groupId, limit: 50, ...(cursor ? { cursor } : {}) }),
    (page) => page.members,
  );
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

  function addEndUser(endUser: { id: string; email: string }) {
    addMember.mutate(
      { groupId, endUserId: endUser.id },
      {
        onSuccess: (result) =>
          // Only the pages loaded so far can tell; the add itself is idempotent either way.
          notifyDone(
            members.items.some((member) => member.endUserId === result.member.endUserId)
              ? `${endUser.email} is already a member.`
              : `${endUser.email} added.`,
          ),
      },
    );
  }

  function grantApp(appId: string, deploymentId: string | undefined) {
    addGrant.mutate({ groupId, targetKind: "app", targetId: appId, ...(deploymentId ? { deploymentId } : {}) });
  }

  return { group, members, grants, removeMember, removeGrant, remove, failure, addEndUser, grantApp };
}

/** The group's members, each removable by admins; a plan group's are its plan's subscribers, read-only here. */
function GroupMembers({
  memberCount,
  members,
  isPlanGroup,
  mayRemove,
  onAdd,
  onRemove,
}: {
  memberCount: number;
  members: ReturnType<typeof useGroupPage>["members"];
  isPlanGroup: boolean;
  mayRemove: boolean;
  onAdd: (endUser: { id: string; email: string }) => void;
  onRemove: (endUserId: string) => void;
}) {
  return (
    <Panel title={`Members (${memberCount})`}>
      <ErrorAlert error={members.error} />
      <DataTable
        label="Members"
        rows={members.isLoaded ? members.items : undefined}
        rowKey={(member) => member.endUserId}
        empty={
          isPlanGroup
            ? "No members yet: end users join this group by holding its plan."
            : "No members yet: add one by email below."
        }
        columns={[
          {
            key: "email",
            header: "Email",
            sortValue: (member) => member.email,
            cell: (member) => <Link href={`/end-users/${member.endUserId}`}>{member.email}</Link>,
          },
          {
            key: "added",
            header: "Added",
            nowrap: true,
            sortValue: (member) => member.addedAt,
            cell: (member) => (
              <span className="muted">
                <When at={member.addedAt} day />
              </span>
            ),
          },
          {
            key: "actions",
            header: "",
            cell: (member) =>
              mayRemove &&
              !isPlanGroup && (
                <ConfirmButton
                  label="Remove"
                  title="Remove this end user from the group?"
                  confirmLabel="Remove"
                  onConfirm={() => onRemove(member.endUserId)}
                />
              ),
          },
        ]}
      />
      <LoadMore list={members} />
      {!isPlanGroup && (
        <div className="row panel-footer">
          <EndUserPicker label="Add a member by email" onPick={onAdd} />
        </div>
      )}
    </Panel>
  );
}
