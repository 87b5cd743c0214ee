"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/lib/trpc";
import {
  Button,
  CheckboxGroup,
  DataTable,
  ErrorAlert,
  fieldProblem,
  FormField,
  LoadMore,
  PageHeader,
  Panel,
  Select,
  type Column,
  urlStatePage,
  useFieldValue,
  usePageState,
  useZodForm,
  When,
} from "@/components/console";
import { EntityPicker, useEntities, type Entity } from "@/components/entity-picker";
import { MAX_EMAIL_CHARS, MAX_NAME_CHARS } from "@/schemas/limits";
import {
  EndUserSort,
  ListEndUsersInput,
  ProvisionEndUserInput,
  type EndUserListItem,
} from "@/schemas/provisioning/provisioning";
import { useTierPlans } from "@/components/provisioning/use-lists";
import { EndUserBulkActions } from "@/components/provisioning/end-user-bulk-actions";
import { EndUserImport } from "@/components/provisioning/end-user-import";

const PAGE_SIZE = 25;
/** The search box: the list input's query (part of an email or a name). */
const EndUserSearch = ListEndUsersInput.pick({ query: true });
const SORTS = EndUserSort.options;
const STATUSES = ["active", "revoked", "suspended"] as const;

interface Filter {
  query: string;
  plan: string;
  group: string;
  status: (typeof STATUSES)[number] | "";
  sort: (typeof SORTS)[number];
}

/** The list's filters and sort, from the URL (unknown values read as none). */
function readFilter(params: URLSearchParams): Filter {
  const status = params.get("status") ?? "";
  const sort = params.get("sort") ?? "";
  return {
    query: params.get("query") ?? "",
    plan: params.get("plan") ?? "",
    group: params.get("group") ?? "",
    status: (STATUSES as readonly string[]).includes(status) ? (status as Filter["status"]) : "",
    sort: (SORTS as readonly string[]).includes(sort) ? (sort as Filter["sort"]) : "created",
  };
}

export default urlStatePage(EndUsers);

function EndUsers() {
  const trpc = useTRPC();
  const params = useSearchParams();
  const filter = readFilter(params);
  const router = useRouter();
  const pathname = usePathname();
  const [cursors, setCursors] = useState<string[]>([]);
  const [selected, setSelected] = useState<string[]>([]);
  const [importing, setImporting] = usePageState(false);
  const cursor = cursors[cursors.length - 1];
  const list = useQuery(
    trpc.endUsers.list.queryOptions({
      limit: PAGE_SIZE,
      cursor,
      sort: filter.sort,
      ...(filter.query ? { query: filter.query } : {}),
      ...(filter.plan ? { tierPlanId: filter.plan } : {}),
      ...(filter.group ? { groupId: filter.group } : {}),
      ...(filter.status ? { status: filter.status } : {}),
    }),
  );
  const plans = useTierPlans();
  // Left out of the form where the organization has groups switched off (the list is refused).
  const groups = useEntities(["group"]);

  /** A new filter or sort: in the URL (reload and Back keep it), from the first page, nothing chosen. */
  function filterBy(next: Partial<Filter>) {
    const merged = { ...filter, ...next };
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(merged))
      if (value && !(key === "sort" && value === "created")) query.set(key, value);
    setCursors([]);
    setSelected([]);
    router.push(query.size ? `${pathname}?${query}` : pathname);
  }

  const rows = list.data?.endUsers ?? [];
  const filtered = Boolean(filter.query || filter.plan || filter.group || filter.status);

  return (
    <>
      <PageHeader
        title="End users"
        description="The people your organization serves: the plans, groups and grants they hold decide which apps they may use, in which portals."
        actions={
          <button type="button" onClick={() => setImporting(!importing)} aria-expanded={importing}>
            Import CSV
          </button>
        }
      />
      {importing && <EndUserImport onClose={() => setImporting(false)} />}
      <ProvisionPanel plans={plans} groupsUnavailable={groups.unavailable} />
      <Panel>
        <EndUserFilters filter={filter} filterBy={filterBy} plans={plans} groups={groups} />
        {selected.length > 0 && (
          <EndUserBulkActions
            selected={selected}
            emails={new Map(rows.map((user) => [user.id, user.email]))}
            onDone={() => setSelected([])}
          />
        )}
        <ErrorAlert error={list.error} />
        {list.data && rows.length === 0 && (
          <p className="muted">
            {filtered
              ? "No end user matches these filters."
              : "No end users yet: provision the first one above, import a CSV, or use the API (POST /end-users)."}
          </p>
        )}
        {list.data && rows.length > 0 && (
          <DataTable
            label="End users"
            rows={rows}
            rowTestId="end-user-row"
            empty={null}
            cards
            columns={endUserColumns(rows, selected, setSelected)}
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

/** Creates an end user, or updates the one with this email: name, plans and groups. */
function ProvisionPanel({
  plans,
  groupsUnavailable,
}: {
  plans: ReturnType<typeof useTierPlans>;
  groupsUnavailable: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(ProvisionEndUserInput, { defaultValues: { email: "", fullName: "", tierPlanIds: [] } });
  const [planIds, setPlanIds] = useFieldValue(form, "tierPlanIds");
  // The groups picked, with their names for the list; their ids go in the input.
  const [chosenGroups, setChosenGroups] = useState<Entity[]>([]);
  const provision = useMutation(
    trpc.endUsers.provision.mutationOptions({
      onSuccess: () => {
        form.reset();
        setChosenGroups([]);
        void queryClient.invalidateQueries({ queryKey: trpc.endUsers.list.queryKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.userGroups.list.queryKey() });
      },
    }),
  );
  const submit = form.handleSubmit(({ fullName, ...input }) =>
    provision.mutate({
      ...input,
      fullName: fullName || undefined,
      groupIds: chosenGroups.map((group) => group.id),
    }),
  );
  const livePlans = plans.items.filter((plan) => !plan.archived);

  return (
    <Panel title="Provision an end user" label="Provision an end user" onSubmit={(event) => void submit(event)}>
      <div className="row fields">
        <FormField label="Email" error={fieldProblem(form, "email")}>
          <input type="email" required maxLength={MAX_EMAIL_CHARS} {...form.register("email")} />
        </FormField>
        <FormField label="Full name" error={fieldProblem(form, "fullName")}>
          <input maxLength={MAX_NAME_CHARS} {...form.register("fullName")} />
        </FormField>
      </div>
      {livePlans.length > 0 && (
        <CheckboxGroup
          legend="Plans"
          legendClassName="muted"
          listClassName="row"
          choices={livePlans.map((plan) => ({
            value: plan.id,
            label: (
              <>
                {plan.name} <span className="muted">({plan.creditAllowance} credits)</span>
              </>
            ),
          }))}
          value={planIds ?? []}
          onChange={setPlanIds}
        >
          <LoadMore list={plans} />
        </CheckboxGroup>
      )}
      {!groupsUnavailable && (
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
        <Button variant="primary" type="submit" disabled={provision.isPending}>
          Provision
        </Button>
      </div>
    </Panel>
  );
}

/** The search box and the filters, kept in the URL through `filterBy`. */
function EndUserFilters({
  filter,
  filterBy,
  plans,
  groups,
}: {
  filter: Filter;
  filterBy: (next: Partial<Filter>) => void;
  plans: ReturnType<typeof useTierPlans>;
  groups: ReturnType<typeof useEntities>;
}) {
  const search = useZodForm(EndUserSearch, { defaultValues: { query: filter.query } });
  const submitSearch = search.handleSubmit(({ query }) => filterBy({ query: query?.trim() ?? "" }));
  return (
    <>
      <form className="row" onSubmit={(event) => void submitSearch(event)} role="search">
        <input
          aria-label="Search by email or name"
          placeholder="Search by email or name"
          maxLength={MAX_EMAIL_CHARS}
          {...search.register("query")}
        />
        <button type="submit">Search</button>
      </form>
      <div className="end-user-filters">
        <FormField label="Plan">
          <Select
            value={filter.plan}
            onChange={(e) => filterBy({ plan: e.target.value })}
            options={plans.items.map((plan) => ({ value: plan.id, label: plan.name }))}
            placeholder="Any plan"
          />
        </FormField>
        {!groups.unavailable && (
          <FormField label="Group">
            <Select
              value={filter.group}
              onChange={(e) => filterBy({ group: e.target.value })}
              options={groups.entities.map((group) => ({ value: group.id, label: group.name }))}
              placeholder="Any group"
            />
          </FormField>
        )}
        <FormField label="Status">
          <Select
            value={filter.status}
            onChange={(e) => filterBy({ status: e.target.value as Filter["status"] })}
            options={[
              { value: "active", label: "Active" },
              { value: "revoked", label: "Revoked" },
              { value: "suspended", label: "Suspended" },
            ]}
            placeholder="Any status"
          />
        </FormField>
        <FormField label="Sort by">
          <Select
            value={filter.sort}
            onChange={(e) => filterBy({ sort: e.target.value as Filter["sort"] })}
            options={[
              { value: "created", label: "Oldest first" },
              { value: "newest", label: "Newest first" },
              { value: "email", label: "Email, A to Z" },
              { value: "lastSeen", label: "Last seen" },
              { value: "creditsLeft", label: "Fewest credits left" },
              { value: "creditsLeftDesc", label: "Most credits left" },
            ]}
          />
        </FormField>
      </div>
    </>
  );
}

/** The list's columns: a checkbox to choose the row, then who the end user is and what they hold. */
function endUserColumns(
  rows: EndUserListItem[],
  selected: string[],
  setSelected: (ids: string[]) => void,
): Column<EndUserListItem>[] {
  return [
    {
      key: "select",
      header: (
        <input
          type="checkbox"
          aria-label="Select every end user on this page"
          checked={rows.every((user) => selected.includes(user.id))}
          onChange={(e) => setSelected(e.target.checked ? rows.map((user) => user.id) : [])}
        />
      ),
      label: "Select",
      cell: (user) => (
        <input
          type="checkbox"
          aria-label={`Select ${user.email}`}
          checked={selected.includes(user.id)}
          onChange={(e) =>
            setSelected(e.target.checked ? [...selected, user.id] : selected.filter((id) => id !== user.id))
          }
        />
      ),
    },
    {
      key: "email",
      header: "End user",
      label: "End user",
      cell: (user) => (
        <div>
          <Link href={`/end-users/${user.id}`}>{user.email}</Link>
          {user.fullName && <div className="muted">{user.fullName}</div>}
        </div>
      ),
    },
    {
      key: "plans",
      header: "Plan",
      cell: (user) =>
        user.plans.length ? user.plans.map((plan) => plan.name).join(", ") : <span className="muted">None</span>,
    },
    {
      key: "credits",
      header: "Credits left",
      nowrap: true,
      cell: (user) => (user.plans.length ? user.creditsLeft.toLocaleString() : <span className="muted">—</span>),
    },
    {
      key: "groups",
      header: "Groups",
      cell: (user) =>
        user.groups.length ? (
          <span className="chips">
            {user.groups.map((group) => (
              <span key={group.id} className="access-chip">
                {group.name}
              </span>
            ))}
          </span>
        ) : (
          <span className="muted">—</span>
        ),
    },
    {
      key: "seen",
      header: "Last seen",
      nowrap: true,
      cell: (user) => (user.lastSeenAt ? <When at={user.lastSeenAt} day /> : <span className="muted">Never</span>),
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
  ];
}
