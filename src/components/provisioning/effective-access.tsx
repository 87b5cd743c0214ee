"use client";
// An end user's access on one page: plans with credits, groups, portals, each usable app with
// why, and every grant that could open an app (theirs and their groups') with whether it does.
// The server computes it with the rule the portal applies (services/portal/portal-access.ts).
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { z } from "zod";
import { DataTable, ErrorAlert, Panel } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { allowedModelsText } from "./allowed-models-field";
import type { AccessReason, EffectiveAccessOutput } from "@/schemas/portal/portal";
import "./provisioning.css";
import { timeOrNever } from "@/lib/when";

type Access = EffectiveAccessOutput;
type Reason = z.infer<typeof AccessReason>;

const GRANT_STATUS: Record<Access["grants"][number]["status"], { label: string; tone: string }> = {
  active: { label: "In force", tone: "ok" },
  expired: { label: "Expired", tone: "off" },
  unpublished: { label: "App not published", tone: "off" },
  unused: { label: "Opens nothing", tone: "off" },
};

function Holder({ holder, name, groupId }: { holder: Reason["holder"]; name: string; groupId: string | null }) {
  if (holder === "user") return <>Own grant</>;
  const label = `${holder === "plan" ? "Plan" : "Group"} ${name}`;
  return groupId ? <Link href={`/groups/${groupId}`}>{label}</Link> : <>{label}</>;
}

function portalLabel(portal: { id: string; name: string } | null): string {
  if (!portal) return "every portal";
  return portal.name || "a deleted portal";
}

export function EffectiveAccess({ endUserId }: { endUserId: string }) {
  const trpc = useTRPC();
  const access = useQuery(trpc.endUsers.access.queryOptions({ endUserId }));
  const data = access.data;
  return (
    <Panel
      title="Effective access"
      headingId="effective-access-title"
      className="access-section"
      testId="effective-access"
    >
      <p className="muted">
        What this end user can use now and why: their own grants, their groups&apos; and their plans&apos; groups&apos;
        {data?.accessMode === "groups"
          ? ", in the portals those groups are admitted to (this organization manages access with groups)"
          : ""}
        .
      </p>
      <ErrorAlert error={access.error} />
      {!data && !access.error && <p className="muted">Loading…</p>}
      {data && (
        <>
          <AccessNotices data={data} />
          <AccessSummary data={data} />
          <UsableApps data={data} />
          <AccessGrants data={data} />
        </>
      )}
    </Panel>
  );
}

/** Why they can use nothing now, when they cannot: revoked, or suspended by the directory. */
function AccessNotices({ data }: { data: Access }) {
  return (
    <>
      {data.revoked && (
        <p className="notice">Access is revoked: they can use nothing until they are provisioned again.</p>
      )}
      {data.suspended && !data.revoked && (
        <p className="notice" data-testid="suspended-notice">
          Suspended by the organization&apos;s directory: they can use nothing until the directory makes them active
          again. Nothing of theirs was deleted.
        </p>
      )}
    </>
  );
}

/** Their plans with the credits left, their groups and the portals they may enter. */
function AccessSummary({ data }: { data: Access }) {
  return (
    <dl className="access-summary">
      <div>
        <dt>Plans</dt>
        <dd>
          {data.plans.length === 0
            ? "None"
            : data.plans.map((plan) => (
                <span
                  key={plan.subscriptionId}
                  className={`access-chip${plan.status === "active" ? "" : " off"}`}
                  data-testid="access-plan"
                >
                  {plan.name}
                  {plan.status === "active"
                    ? ` · ${plan.creditsLeft} of ${plan.creditAllowance + plan.bonusCredits} credits left${plan.allowedModels ? ` · models: ${allowedModelsText(plan.allowedModels)}` : ""}`
                    : " · canceled"}
                </span>
              ))}
        </dd>
      </div>
      <div>
        <dt>Groups</dt>
        <dd>
          {data.groups.length === 0
            ? "None"
            : data.groups.map((group) => (
                <Link key={group.id} href={`/groups/${group.id}`} className="access-chip">
                  {group.name}
                  {group.planName !== null && <span className="muted"> (plan)</span>}
                </Link>
              ))}
        </dd>
      </div>
      <div>
        <dt>Portals</dt>
        <dd>
          {data.portals.length === 0
            ? "None"
            : data.portals.map((portal) => (
                <Link
                  key={portal.id}
                  href={`/portals/${portal.id}`}
                  className="access-chip"
                  data-testid="access-portal"
                >
                  {portal.name}
                </Link>
              ))}
        </dd>
      </div>
    </dl>
  );
}

/** Each app they can use, where, and the grants that open it. */
function UsableApps({ data }: { data: Access }) {
  return (
    <>
      <h3>Apps they can use</h3>
      <DataTable
        cards
        label="Apps they can use"
        rows={data.apps}
        rowKey={(app) => app.appId}
        rowTestId="access-row"
        empty="No app: no grant in force opens a published app for them."
        columns={[
          {
            key: "app",
            header: "App",
            nowrap: true,
            cell: (app) => <Link href={`/apps/${app.appId}`}>{app.appName}</Link>,
            sortValue: (app) => app.appName,
          },
          {
            key: "where",
            header: "Where",
            cell: (app) =>
              app.portals === "all" ? "Every portal" : app.portals.map((portal) => portal.name).join(", "),
          },
          {
            key: "why",
            header: "Why",
            cell: (app) => (
              <ul className="access-reasons">
                {app.via.map((reason) => (
                  <li key={`${reason.grantId}-${reason.portal?.id ?? ""}`}>
                    <Holder {...reason} />
                    {reason.portal && <span className="muted"> · in {reason.portal.name}</span>}
                  </li>
                ))}
              </ul>
            ),
          },
        ]}
      />
    </>
  );
}

/** Every grant that could open an app, theirs and their groups', with whether it does. */
function AccessGrants({ data }: { data: Access }) {
  return (
    <>
      <h3>Every grant that could open an app</h3>
      <DataTable
        cards
        label="Grants, their own and their groups'"
        // Grants left behind by an app deleted before its grants went with it open nothing: not listed.
        rows={data.grants.filter((grant) => grant.appName !== null)}
        rowTestId="access-grant"
        empty="No grants, neither their own nor their groups'."
        columns={[
          {
            key: "app",
            header: "App",
            nowrap: true,
            cell: (grant) => <Link href={`/apps/${grant.appId}`}>{grant.appName}</Link>,
          },
          {
            key: "from",
            header: "From",
            nowrap: true,
            cell: (grant) => <Holder holder={grant.holder} name={grant.holderName} groupId={grant.groupId} />,
          },
          { key: "portal", header: "Portal", cell: (grant) => portalLabel(grant.portal) },
          {
            key: "expires",
            header: "Expires",
            nowrap: true,
            cell: (grant) => timeOrNever(grant.expiresAt),
          },
          {
            key: "status",
            header: "Status",
            nowrap: true,
            cell: (grant) => (
              <span className={`badge access-${GRANT_STATUS[grant.status].tone}`}>
                {GRANT_STATUS[grant.status].label}
              </span>
            ),
          },
        ]}
      />
    </>
  );
}
