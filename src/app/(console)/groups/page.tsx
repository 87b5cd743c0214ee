"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/lib/trpc";
import { ErrorAlert, PageHeader } from "@/components/console";

export default function GroupsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const groups = useQuery(trpc.userGroups.list.queryOptions({ limit: 200 }));
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
      <form className="panel form" onSubmit={submit} aria-label="Create a user group">
        <div className="row">
          <label>
            Name
            <input required value={name} onChange={(e) => setName(e.target.value)} />
          </label>
          <label>
            Description
            <input value={description} onChange={(e) => setDescription(e.target.value)} />
          </label>
        </div>
        <ErrorAlert error={create.error} />
        <div>
          <button className="primary" type="submit" disabled={create.isPending}>
            Create group
          </button>
        </div>
      </form>
      <div className="panel">
        {groups.data?.userGroups.length === 0 && (
          <p className="muted">No groups yet: create one above, then grant it apps and add end users from its page.</p>
        )}
        {groups.data && groups.data.userGroups.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Members</th>
                <th>Description</th>
              </tr>
            </thead>
            <tbody>
              {groups.data.userGroups.map((group) => (
                <tr key={group.id}>
                  <td>
                    <Link href={`/groups/${group.id}`}>{group.name}</Link>{" "}
                    {group.planId && <span className="badge">Plan group</span>}
                  </td>
                  <td>{group.memberCount}</td>
                  <td className="muted">{group.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}
