"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/lib/trpc";
import { ListTable, CreateNamedItemPanel, NAME_COLUMN, PageHeader, Panel, useCursorList } from "@/components/console";
import { CreateUserGroupInput } from "@/schemas/provisioning/provisioning";

export default function GroupsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const groups = useCursorList(
    (cursor) => trpc.userGroups.list.queryOptions({ limit: 50, ...(cursor ? { cursor } : {}) }),
    (page) => page.userGroups,
  );
  const create = useMutation(
    trpc.userGroups.create.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.userGroups.list.queryKey() }),
    }),
  );

  return (
    <>
      <PageHeader
        title="User groups"
        description="End users in a group share its grants and the portals it is admitted to."
      />
      <CreateNamedItemPanel
        schema={CreateUserGroupInput}
        create={create}
        label="Create a user group"
        submitLabel="Create group"
        describe
        fieldsInRow
      />
      <Panel>
        <ListTable
          list={groups}
          label="User groups"
          empty="No groups yet: create one above, then grant it apps and add end users from its page."
          columns={[
            {
              ...NAME_COLUMN,
              cell: (group) => (
                // The link alone on its line and the badge on its own (axe's link-in-text-block: a link
                // beside text must not be told apart by colour alone).
                <div className="name-with-badge">
                  <Link href={`/groups/${group.id}`}>{group.name}</Link>
                  {group.planId && <span className="badge">Plan group</span>}
                </div>
              ),
            },
            {
              key: "members",
              header: "Members",
              nowrap: true,
              sortValue: (group) => group.memberCount,
              cell: (group) => group.memberCount,
            },
            {
              key: "description",
              header: "Description",
              cell: (group) => <span className="muted">{group.description}</span>,
            },
          ]}
        />
      </Panel>
    </>
  );
}
