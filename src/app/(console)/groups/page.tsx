"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/lib/trpc";
import {
  DataTable,
  ErrorAlert,
  FormActions,
  FormField,
  LoadMore,
  PageHeader,
  Panel,
  useCursorList,
} from "@/components/console";
import { MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS } from "@/schemas/limits";

export default function GroupsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const groups = useCursorList(
    (cursor) => trpc.userGroups.list.queryOptions({ limit: 50, ...(cursor ? { cursor } : {}) }),
    (page) => page.userGroups,
  );
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const create = useMutation(
    trpc.userGroups.create.mutationOptions({
      onSuccess: () => {
        setName("");
        setDescription("");
        void queryClient.invalidateQueries({ queryKey: trpc.userGroups.list.queryKey() });
      },
    }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ name, description });
  }

  return (
    <>
      <PageHeader
        title="User groups"
        description="End users in a group share its grants and the portals it is admitted to."
      />
      <ErrorAlert error={groups.error} />
      <Panel label="Create a user group" onSubmit={submit}>
        <div className="row">
          <FormField label="Name">
            <input required maxLength={MAX_NAME_CHARS} value={name} onChange={(e) => setName(e.target.value)} />
          </FormField>
          <FormField label="Description">
            <input
              maxLength={MAX_DESCRIPTION_CHARS}
              value={description}
              onChange={(e) => setDescription(e.target.value)}
            />
          </FormField>
        </div>
        <FormActions error={create.error} submitLabel="Create group" pending={create.isPending} />
      </Panel>
      <Panel>
        {groups.isLoading && <p className="muted">Loading…</p>}
        {groups.isLoaded && (
          <DataTable
            label="User groups"
            rows={groups.items}
            rowKey={(group) => group.id}
            empty="No groups yet: create one above, then grant it apps and add end users from its page."
            columns={[
              {
                key: "name",
                header: "Name",
                sortValue: (group) => group.name,
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
        )}
        <LoadMore list={groups} />
      </Panel>
    </>
  );
}
