"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/lib/trpc";
import { DataTable, ErrorAlert, FormField, LoadMore, PageHeader, Panel } from "@/components/console";
import { EntityPicker, useEntities, type Entity } from "@/components/entity-picker";
import { MAX_EMAIL_CHARS, MAX_NAME_CHARS } from "@/schemas/limits";
import { useTierPlans } from "@/components/provisioning/use-lists";

const PAGE_SIZE = 25;

export default function EndUsersPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const list = useQuery(trpc.endUsers.list.queryOptions({ limit: PAGE_SIZE, cursor, query: query || undefined }));
  const plans = useTierPlans();
  // Left out of the form where the organization has groups switched off (the list is refused).
  const groups = useEntities(["group"]);

  const [email, setEmail] = useState("");
  const [fullName, setFullName] = useState("");
  const [planIds, setPlanIds] = useState<string[]>([]);
  const [chosenGroups, setChosenGroups] = useState<Entity[]>([]);
  const provision = useMutation(
    trpc.endUsers.provision.mutationOptions({
      onSuccess: () => {
        setEmail("");
        setFullName("");
        setPlanIds([]);
        setChosenGroups([]);
        void queryClient.invalidateQueries({ queryKey: trpc.endUsers.list.queryKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.userGroups.list.queryKey() });
      },
    }),
  );

  function submitSearch(event: FormEvent) {
    event.preventDefault();
    setCursors([]);
    setQuery(search.trim());
  }

  function submitProvision(event: FormEvent) {
    event.preventDefault();
    provision.mutate({
      email,
      fullName: fullName || undefined,
      tierPlanIds: planIds,
      groupIds: chosenGroups.map((group) => group.id),
    });
  }

  const livePlans = plans.items.filter((plan) => !plan.archived);

  return (
    <>
      <PageHeader
        title="End users"
        description="The people your organization serves: the plans, groups and grants they hold decide which apps they may use, in which portals."
      />
      <Panel title="Provision an end user" label="Provision an end user" onSubmit={submitProvision}>
        <div className="row">
          <FormField label="Email">
            <input
              type="email"
              required
              maxLength={MAX_EMAIL_CHARS}
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </FormField>
          <FormField label="Full name">
            <input maxLength={MAX_NAME_CHARS} value={fullName} onChange={(e) => setFullName(e.target.value)} />
          </FormField>
        </div>
        {livePlans.length > 0 && (
          <fieldset className="bare">
            <legend className="muted">Plans</legend>
            <div className="row">
              {livePlans.map((plan) => (
                <label key={plan.id} className="inline">
                  <input
                    type="checkbox"
                    checked={planIds.includes(plan.id)}
                    onChange={(e) =>
                      setPlanIds(e.target.checked ? [...planIds, plan.id] : planIds.filter((id) => id !== plan.id))
                    }
                  />
                  {plan.name} <span className="muted">({plan.creditAllowance} credits)</span>
                </label>
              ))}
            </div>
            <LoadMore list={plans} />
          </fieldset>
        )}
        {!groups.unavailable && (
          <fieldset className="bare">
            <legend className="muted">Groups</legend>
            {chosenGroups.length > 0 && (
              <div className="list-editor" aria-label="Chosen groups" style={{ marginBottom: "0.5rem" }}>
                {chosenGroups.map((group) => (
                  <div key={group.id} className="item row" data-testid="chosen-group">
                    <span style={{ flex: 1 }}>{group.name}</span>
                    <button
                      type="button"
                      aria-label={`Remove ${group.name}`}
                      onClick={() => setChosenGroups(chosenGroups.filter((chosen) => chosen.id !== group.id))}
                    >
                      Remove
                    </button>
                  </div>
                ))}
              </div>
            )}
            <EntityPicker
              kinds={["group"]}
              label="Add to a group"
              exclude={chosenGroups.map((group) => group.id)}
              emptyText="No groups yet: create one under User groups."
              onPick={(group) => setChosenGroups([...chosenGroups, group])}
            />
          </fieldset>
        )}
        <ErrorAlert error={provision.error} />
        {provision.data && (
          <p role="status">
            {provision.data.created ? "Created" : "Updated"}{" "}
            <Link href={`/end-users/${provision.data.endUser.id}`}>{provision.data.endUser.email}</Link>.
          </p>
        )}
        <div>
          <button className="primary" type="submit" disabled={provision.isPending}>
            Provision
          </button>
        </div>
      </Panel>

      <Panel>
        <form className="row" onSubmit={submitSearch} role="search">
          <input
            aria-label="Search by email"
            placeholder="Search by email"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
          <button type="submit">Search</button>
        </form>
        <ErrorAlert error={list.error} />
        {list.data && list.data.endUsers.length === 0 && (
          <p className="muted">
            {query
              ? `No end user's email contains “${query}”.`
              : "No end users yet: provision the first one above, or over the API (POST /end-users)."}
          </p>
        )}
        {list.data && list.data.endUsers.length > 0 && (
          <DataTable
            label="End users"
            rows={list.data.endUsers}
            rowKey={(user) => user.id}
            rowTestId="end-user-row"
            empty={null}
            cards
            columns={[
              {
                key: "email",
                header: "Email",
                cell: (user) => <Link href={`/end-users/${user.id}`}>{user.email}</Link>,
              },
              { key: "name", header: "Name", cell: (user) => user.fullName },
              {
                key: "created",
                header: "Created",
                nowrap: true,
                cell: (user) => <span className="muted">{new Date(user.createdAt).toLocaleString()}</span>,
              },
              {
                key: "status",
                header: "Status",
                nowrap: true,
                cell: (user) =>
                  user.revokedAt ? (
                    <span className="badge revoked">Revoked</span>
                  ) : user.suspendedAt ? (
                    <span className="badge revoked" title="No active directory user stands for them">
                      Suspended
                    </span>
                  ) : (
                    <span className="badge">Active</span>
                  ),
              },
            ]}
          />
        )}
        {(cursors.length > 0 || list.data?.nextCursor) && (
          <div className="row" style={{ marginTop: "0.75rem" }}>
            <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              Previous
            </button>
            <button
              type="button"
              disabled={!list.data?.nextCursor}
              onClick={() => list.data?.nextCursor && setCursors([...cursors, list.data.nextCursor])}
            >
              Next
            </button>
          </div>
        )}
      </Panel>
    </>
  );
}
