"use client";
// Organization › Directory: connect an identity provider over SCIM (the URL to paste, a token shown
// once), the plan new directory end users get, and what the directory has synced (docs/directory-and-sso.md).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import {
  Button,
  ConfirmButton,
  CopyableValue,
  SecretShownOnce,
  DataTable,
  ErrorAlert,
  FormField,
  LoadMore,
  PageHeader,
  Panel,
  Select,
} from "@/components/console";
import { SsoPanel } from "@/components/directory/sso-panel";
import type { z } from "zod";
import { useTRPC } from "@/lib/trpc";
import type { DirectoryOverview } from "@/schemas/identity/directory";
import { useTierPlans } from "@/components/provisioning/use-lists";
import { timeOrNever } from "@/lib/when";

export default function DirectoryPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const overview = useQuery(trpc.directory.overview.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.directory.overview.queryKey() });
  const data = overview.data;

  return (
    <>
      <PageHeader title="Directory" />
      <p className="muted">
        Connect your identity provider (Microsoft Entra ID, Okta, …) over SCIM 2.0: the people and groups you assign
        there become end users and user groups here, and people it deactivates are suspended at once (nothing of theirs
        is deleted). Setup steps for each provider:{" "}
        <Link href="/docs/directory-and-sso">the directory and single sign-on guide</Link>.
      </p>
      <ErrorAlert error={overview.error} />

      <ConnectionPanel data={data} refresh={refresh} />
      <DefaultPlanPanel data={data} refresh={refresh} />
      <DirectoryUsersPanel data={data} />
      <DirectoryGroupsPanel data={data} />
      {data && <SsoPanel callbackUrl={data.oidcRedirectUri} serviceProvider={data.samlServiceProvider} />}
      <SyncActivityPanel data={data} />
    </>
  );
}

type Overview = z.infer<typeof DirectoryOverview> | undefined;

/** The SCIM URL to paste and the token: shown once when made, rotated behind a confirmation. */
function ConnectionPanel({ data, refresh }: { data: Overview; refresh: () => Promise<void> }) {
  const trpc = useTRPC();
  const [secret, setSecret] = useState<string | null>(null);
  const rotate = useMutation(
    trpc.directory.rotateToken.mutationOptions({
      onSuccess: (token) => {
        setSecret(token.secret);
        void refresh();
      },
    }),
  );
  const hasToken = (data?.tokens.length ?? 0) > 0;
  return (
    <Panel title="Connection">
      <p className="muted">Tenant URL (Entra ID) or SCIM connector base URL (Okta):</p>
      {data && <CopyableValue value={data.scimUrl} testId="scim-url" />}
      <p className="muted">
        Secret token (Entra ID) or Bearer token (Okta):{" "}
        {hasToken
          ? `${data!.tokens[0]!.prefix}…, created ${timeOrNever(data!.tokens[0]!.createdAt)}, last used ${timeOrNever(data!.tokens[0]!.lastUsedAt)}`
          : "none yet"}
        .
      </p>
      {secret && (
        <SecretShownOnce secret={secret} testId="scim-token" onDone={() => setSecret(null)}>
          Copy the token now and paste it into your identity provider: it is shown only once.
        </SecretShownOnce>
      )}
      {hasToken ? (
        <ConfirmButton
          label="Rotate token"
          title="Rotate the SCIM token?"
          description="A new token is made and the current one stops working at once: paste the new one into your identity provider right away."
          confirmLabel="Rotate"
          needs="settings"
          onConfirm={() => rotate.mutate()}
        />
      ) : (
        <Button variant="primary" onClick={() => rotate.mutate()} disabled={rotate.isPending}>
          Create token
        </Button>
      )}
      <ErrorAlert error={rotate.error} />
    </Panel>
  );
}

/** The plan new directory end users are subscribed to. */
function DefaultPlanPanel({ data, refresh }: { data: Overview; refresh: () => Promise<void> }) {
  const trpc = useTRPC();
  const plans = useTierPlans();
  const setPlan = useMutation(trpc.directory.setDefaultPlan.mutationOptions({ onSuccess: () => void refresh() }));
  return (
    <Panel title="Default plan">
      <FormField label="New end users from the directory are subscribed to">
        <Select
          data-testid="directory-default-plan"
          value={data?.defaultPlanId ?? ""}
          onChange={(event) => setPlan.mutate({ tierPlanId: event.target.value || null })}
          disabled={!data || setPlan.isPending}
          options={plans.items.filter((plan) => !plan.archived).map((plan) => ({ value: plan.id, label: plan.name }))}
          placeholder="No plan"
        />
      </FormField>
      <LoadMore list={plans} />
      <ErrorAlert error={plans.error ?? setPlan.error} />
    </Panel>
  );
}

/** The directory's users, each with the end user it stands for and its state. */
function DirectoryUsersPanel({ data }: { data: Overview }) {
  return (
    <Panel title={<>Directory users{data ? ` (${data.userCount})` : ""}</>}>
      <DataTable
        label="Directory users"
        cards
        rows={data?.users}
        empty="None yet: assign people to the application in your identity provider."
        columns={[
          { key: "userName", header: "User name", sortValue: (user) => user.userName, cell: (user) => user.userName },
          { key: "name", header: "Name", sortValue: (user) => user.displayName, cell: (user) => user.displayName },
          {
            key: "endUser",
            header: "End user",
            cell: (user) =>
              user.endUser ? (
                <Link href={`/end-users/${user.endUser.id}`}>{user.endUser.email}</Link>
              ) : (
                <span className="muted">none (no address)</span>
              ),
          },
          {
            key: "state",
            header: "State",
            cell: (user) =>
              user.active ? (
                <span className="badge">Active</span>
              ) : (
                <span className="badge revoked">
                  {user.endUser?.suspendedAt ? `Suspended ${timeOrNever(user.endUser.suspendedAt)}` : "Inactive"}
                </span>
              ),
          },
          {
            key: "synced",
            header: "Synced",
            sortValue: (user) => user.updatedAt,
            cell: (user) => timeOrNever(user.updatedAt),
          },
        ]}
      />
    </Panel>
  );
}

/** The directory's groups, each linking to its group page. */
function DirectoryGroupsPanel({ data }: { data: Overview }) {
  return (
    <Panel title="Directory groups">
      <p className="muted">
        Their names and members follow the directory; give them apps and portals on their group page.
      </p>
      {data && data.groups.length === 0 && <p className="muted">None yet: push groups from your identity provider.</p>}
      {data && data.groups.length > 0 && (
        <ul>
          {data.groups.map((group) => (
            <li key={group.id}>
              <Link href={`/groups/${group.id}`}>{group.name}</Link>{" "}
              <span className="muted">({group.memberCount} members)</span>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

/** The directory's latest SCIM requests and how they were answered. */
function SyncActivityPanel({ data }: { data: Overview }) {
  return (
    <Panel title="Recent sync activity">
      <DataTable
        label="Sync activity"
        rows={data?.events}
        empty="Nothing yet."
        columns={[
          { key: "when", header: "When", nowrap: true, cell: (event) => timeOrNever(event.createdAt) },
          { key: "request", header: "Request", cell: (event) => <code>{event.action}</code> },
          {
            key: "status",
            header: "Status",
            cell: (event) => <span className={event.status >= 400 ? "badge revoked" : "badge"}>{event.status}</span>,
          },
          { key: "detail", header: "Detail", cell: (event) => event.detail },
        ]}
      />
    </Panel>
  );
}
