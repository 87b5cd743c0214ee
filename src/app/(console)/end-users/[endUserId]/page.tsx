"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams, useRouter } from "next/navigation";
import type { ReactNode } from "react";
import {
  ConfirmButton,
  DataTable,
  ErrorAlert,
  LoadMore,
  PageFailed,
  PageHeader,
  PageLoading,
  Panel,
  RecentActivity,
  Select,
  type Column,
  useFieldValue,
  useMay,
  useZodForm,
  When,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { EndUserDataPanel } from "@/components/provisioning/end-user-data-panel";
import { EffectiveAccess } from "@/components/provisioning/effective-access";
import { BonusCreditsPanel } from "@/components/provisioning/bonus-credits-panel";
import { CreditLedgerPanel } from "@/components/provisioning/credit-ledger-panel";
import { GrantsPanel } from "@/components/provisioning/grants-panel";
import { ScopedUsage } from "@/components/usage/scoped-usage";
import { useTierPlans } from "@/components/provisioning/use-lists";
import {
  ProvisionEndUserInput,
  type EndUserDetail,
  type SubscriptionDetail,
} from "@/schemas/provisioning/provisioning";
import { doorName } from "@/lib/change-words";

const BACK = { href: "/end-users", label: "End users" };

export default function EndUserPage() {
  const { endUserId } = useParams<{ endUserId: string }>();
  const trpc = useTRPC();
  const detail = useQuery(trpc.endUsers.get.queryOptions({ endUserId }));
  const plans = useTierPlans();
  const { provision, revoke, removePlan, removeGrant, remove, failure } = useEndUserChanges();
  // Removing a plan or a grant is for admins: members see no Remove in those rows.
  const mayDelete = useMay("delete");

  if (detail.error) return <PageFailed title="End user" back={BACK} error={detail.error} />;
  const user = detail.data?.endUser;
  if (!user) return <PageLoading title="End user" />;

  const held = new Set(user.subscriptions.filter((s) => s.status === "active").map((s) => s.tierPlanId));
  const assignable = plans.items.filter((plan) => !plan.archived && !held.has(plan.id));

  function grantApp(appId: string, deploymentId: string | undefined) {
    if (user)
      provision.mutate({
        email: user.email,
        grants: [{ targetKind: "app", targetId: appId, effect: "allow", ...(deploymentId ? { deploymentId } : {}) }],
      });
  }

  return (
    <>
      <PageHeader title={user.email} back={BACK} />
      <ErrorAlert error={failure} />
      <EndUserFacts
        user={user}
        onRevoke={() => revoke.mutate({ endUserId })}
        onDelete={() => remove.mutate({ endUserId })}
      />

      {/* What an admin sets first (plans, then apps), then what it adds up to, then what was spent. */}
      <SubscriptionsPanel
        user={user}
        plans={plans}
        assignable={assignable}
        pending={provision.isPending}
        onAdd={(input) => provision.mutate(input)}
        onRemove={mayDelete ? (tierPlanId) => removePlan.mutate({ endUserId, tierPlanId }) : null}
      />

      <EndUserGrants
        grants={user.grants}
        mayRemove={mayDelete}
        onRemove={(grantId) => removeGrant.mutate({ endUserId, grantId })}
        onGrant={grantApp}
      />

      <EffectiveAccess endUserId={endUserId} />

      <BonusCreditsPanel endUserId={endUserId} subscriptions={user.subscriptions} />

      <CreditLedgerPanel endUserId={endUserId} />

      <ScopedUsage
        scope={{ endUserId }}
        whose="Their"
        empty={
          <>
            No runs for this end user in this range. Their turns in a portal, and the API&apos;s runs made on their
            behalf (<code>endUserId</code>), show here as they finish.
          </>
        }
      />

      <RecentActivity targetId={endUserId} />

      <EndUserDataPanel endUserId={endUserId} email={user.email} />
    </>
  );
}

/** What changes the end user, each refreshing every end-user query (the list shows revocation too). */
function useEndUserChanges() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.endUsers.pathKey() });

  const provision = useMutation(trpc.endUsers.provision.mutationOptions({ onSuccess: () => void refresh() }));
  const revoke = useMutation(trpc.endUsers.revoke.mutationOptions({ onSuccess: () => void refresh() }));
  const removePlan = useMutation(trpc.endUsers.removeSubscription.mutationOptions({ onSuccess: () => void refresh() }));
  const removeGrant = useMutation(trpc.endUsers.removeGrant.mutationOptions({ onSuccess: () => void refresh() }));
  const remove = useMutation(trpc.endUsers.delete.mutationOptions({ onSuccess: () => router.replace("/end-users") }));
  const failure = provision.error ?? revoke.error ?? removePlan.error ?? removeGrant.error ?? remove.error;
  return { provision, revoke, removePlan, removeGrant, remove, failure };
}

/** Who they are and since when, whether revoked or suspended, with revoking and deleting them. */
function EndUserFacts({
  user,
  onRevoke,
  onDelete,
}: {
  user: EndUserDetail;
  onRevoke: () => void;
  onDelete: () => void;
}) {
  return (
    <Panel>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{user.fullName || "—"}</dd>
        <dt>Created</dt>
        <dd>
          <When at={user.createdAt} />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <When at={user.lastSeenAt} />
        </dd>
        <dt>Revoked</dt>
        <dd data-testid="revoked-at">{user.revokedAt ? <When at={user.revokedAt} /> : "No"}</dd>
        <dt>Suspended by the directory</dt>
        <dd data-testid="suspended-at">{user.suspendedAt ? <When at={user.suspendedAt} /> : "No"}</dd>
      </dl>
      <div className="row panel-footer">
        {!user.revokedAt && (
          <ConfirmButton
            label="Revoke access"
            title={`Revoke ${user.email}'s access?`}
            description="They are signed out of every portal and can no longer sign in."
            confirmLabel="Revoke access"
            onConfirm={onRevoke}
          />
        )}
        <ConfirmButton
          label="Delete end user"
          title={`Delete ${user.email}?`}
          description="Their access, sessions and grants are removed; this cannot be undone."
          confirmLabel="Delete for good"
          onConfirm={onDelete}
          needs="delete"
        />
      </div>
    </Panel>
  );
}

/** The plans they hold (each removable by admins), and adding one more. */
function SubscriptionsPanel({
  user,
  plans,
  assignable,
  pending,
  onAdd,
  onRemove,
}: {
  user: EndUserDetail;
  plans: ReturnType<typeof useTierPlans>;
  assignable: ReturnType<typeof useTierPlans>["items"];
  pending: boolean;
  onAdd: (input: ProvisionEndUserInput) => void;
  onRemove: ((tierPlanId: string) => void) | null;
}) {
  return (
    <Panel title="Subscriptions">
      <DataTable
        label="Subscriptions table"
        rows={user.subscriptions}
        rowTestId="subscription-row"
        empty="No plans: add one below."
        cards
        columns={subscriptionColumns(onRemove)}
      />
      {assignable.length > 0 && (
        <AddPlanForm email={user.email} assignable={assignable} pending={pending} onAdd={onAdd}>
          <LoadMore list={plans} />
        </AddPlanForm>
      )}
    </Panel>
  );
}

/** Their own grants, with where each came from and when it ends; granting an app to them. */
function EndUserGrants({
  grants,
  mayRemove,
  onRemove,
  onGrant,
}: {
  grants: EndUserDetail["grants"];
  mayRemove: boolean;
  onRemove: (grantId: string) => void;
  onGrant: (appId: string, deploymentId: string | undefined) => void;
}) {
  return (
    <GrantsPanel
      grants={grants}
      empty="No per-user grants: grant an app below."
      targetHeader="Target"
      anyPortal="any"
      more={[
        { key: "source", header: "Source", cell: (grant) => <span className="muted">{doorName(grant.source)}</span> },
        {
          key: "expires",
          header: "Expires",
          cell: (grant) => (
            <span className="muted">
              <When at={grant.expiresAt} />
            </span>
          ),
        },
      ]}
      actionsHeader={<span className="visually-hidden">Actions</span>}
      cards
      mayRemove={mayRemove}
      onRemove={onRemove}
      onGrant={onGrant}
    />
  );
}

/** One more plan for the end user: the provision input with a single plan chosen. */
function AddPlanForm({
  email,
  assignable,
  pending,
  onAdd,
  children,
}: {
  email: string;
  assignable: { id: string; name: string }[];
  pending: boolean;
  onAdd: (input: ProvisionEndUserInput) => void;
  children: ReactNode;
}) {
  const form = useZodForm(ProvisionEndUserInput, { defaultValues: { email, tierPlanIds: [] } });
  const [planIds, setPlanIds] = useFieldValue(form, "tierPlanIds");
  const submit = form.handleSubmit((input) => {
    onAdd(input);
    form.reset();
  });
  return (
    <form className="row panel-footer" onSubmit={(event) => void submit(event)}>
      <Select
        aria-label="Plan to add"
        value={planIds?.[0] ?? ""}
        onValueChange={(id) => setPlanIds(id ? [id] : [])}
        options={assignable.map((plan) => ({ value: plan.id, label: plan.name }))}
        placeholder="Choose a plan…"
      />
      <button type="submit" disabled={!planIds?.length || pending}>
        Add plan
      </button>
      {children}
    </form>
  );
}

/** An end user's subscriptions: plan, status, credits used of the pool, reset, who provisioned it; Remove for admins. */
function subscriptionColumns(onRemove: ((tierPlanId: string) => void) | null): Column<SubscriptionDetail>[] {
  return [
    { key: "plan", header: "Plan", cell: (s) => s.tierPlanName },
    {
      key: "status",
      header: "Status",
      cell: (s) =>
        s.status === "active" ? <span className="badge">Active</span> : <span className="badge revoked">Canceled</span>,
    },
    {
      key: "credits",
      header: "Credits used",
      nowrap: true,
      cell: (s) => (
        <>
          {s.creditsUsed} / {s.creditAllowance + s.bonusCredits}
          <progress
            max={Math.max(1, s.creditAllowance + s.bonusCredits)}
            value={s.creditsUsed}
            style={{ marginLeft: "0.5rem" }}
          />
        </>
      ),
    },
    {
      key: "resets",
      header: "Resets",
      cell: (s) => (
        <span className="muted">
          <When at={s.creditsResetAt} />
        </span>
      ),
    },
    {
      key: "by",
      header: "Provisioned by",
      cell: (s) => (
        <span className="muted">
          {doorName(s.provisionedBy)}
          {s.isComped ? " · comped" : ""}
        </span>
      ),
    },
    {
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      cell: (s) =>
        onRemove &&
        s.status === "active" &&
        s.provisionedBy !== "processor" && (
          <ConfirmButton
            label="Remove"
            title="Remove this plan from the end user?"
            confirmLabel="Remove"
            onConfirm={() => onRemove(s.tierPlanId)}
          />
        ),
    },
  ];
}
