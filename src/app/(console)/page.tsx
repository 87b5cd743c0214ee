"use client";
import { useQuery } from "@tanstack/react-query";
import { CircleCheck, Circle } from "lucide-react";
import Link from "next/link";
import { ErrorAlert, PageHeader, Panel } from "@/components/console";
import { cappedCount } from "@/lib/digits";
import { UsageOverview } from "@/components/usage/usage-overview";
import { useTRPC } from "@/lib/trpc";

export default function OverviewPage() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const overview = useQuery(trpc.overview.get.queryOptions());
  // The navigation's badges read the same, on every page.
  const pending = useQuery(trpc.overview.waiting.queryOptions()).data;
  const organization = me.data?.organization;
  const counts = overview.data;

  const steps = counts
    ? [
        { done: counts.keys > 0, label: "Create an API key", href: "/keys" },
        { done: counts.knowledgebases > 0, label: "Create a knowledgebase", href: "/knowledge" },
        { done: counts.agents > 0, label: "Build an agent", href: "/agents" },
        { done: counts.apps > 0, label: "Make an app", href: "/apps" },
        { done: counts.publishedApps > 0, label: "Publish the app", href: "/apps" },
        { done: counts.hasConversations, label: "Chat with it", href: "/chat" },
      ]
    : [];
  // What the organization holds, each a way into its page.
  const inventory = counts
    ? [
        { count: counts.apps, one: "app", many: "apps", href: "/apps" },
        { count: counts.agents, one: "agent", many: "agents", href: "/agents" },
        { count: counts.flows, one: "flow", many: "flows", href: "/flows" },
        { count: counts.knowledgebases, one: "knowledgebase", many: "knowledgebases", href: "/knowledge" },
        {
          count: counts.endUsers,
          atLeast: counts.endUsersAtLeast,
          one: "end user",
          many: "end users",
          href: "/end-users",
        },
        { count: counts.portals, one: "portal", many: "portals", href: "/portals" },
        { count: counts.members, one: "member", many: "members", href: "/members" },
      ]
    : [];
  // What waits on a person here, said only when something does, and only once the heading above
  // it is whole: its credits arriving later would move the links under a finger.
  const waiting =
    pending && counts && organization
      ? [
          {
            count: pending.pendingReviews,
            words: pending.pendingReviews === 1 ? "knowledge edit waits for review" : "knowledge edits wait for review",
            href: "/reviews",
          },
          {
            count: pending.pendingApprovals,
            words: pending.pendingApprovals === 1 ? "run waits for approval" : "runs wait for approval",
            href: "/approvals",
          },
        ].filter((item) => item.count > 0)
      : [];
  const remaining = steps.filter((step) => !step.done).length;

  return (
    <>
      <PageHeader
        title={organization?.name ?? "Overview"}
        description={
          organization && (
            <>
              Plan <strong>{organization.plan}</strong> · developer API{" "}
              {organization.plan === "free" ? "not included in this plan" : organization.apiEnabled ? "on" : "off"}
              {counts && (
                <>
                  {" · "}
                  <Link href="/settings" data-testid="credits-left">
                    {counts.creditsLeft.toLocaleString()} credit{counts.creditsLeft === 1 ? "" : "s"} left
                  </Link>
                </>
              )}
            </>
          )
        }
      />
      <ErrorAlert error={me.error ?? overview.error} />
      {waiting.length > 0 && (
        <section className="waiting" aria-labelledby="waiting-heading">
          <h2 id="waiting-heading" className="visually-hidden">
            Waiting for you
          </h2>
          <ul>
            {waiting.map((item) => (
              <li key={item.href}>
                <Link href={item.href}>
                  <strong>{item.count.toLocaleString()}</strong> {item.words}
                </Link>
              </li>
            ))}
          </ul>
        </section>
      )}
      {counts && remaining > 0 && (
        <Panel title="Getting started" headingId="getting-started">
          <p className="muted">
            {remaining} of {steps.length} steps left.
          </p>
          <ol className="checklist">
            {steps.map((step) => (
              <li key={step.label} className={step.done ? "done" : undefined}>
                {step.done ? (
                  <CircleCheck size={18} aria-hidden className="icon check" />
                ) : (
                  <Circle size={18} aria-hidden className="icon" />
                )}
                {step.done ? <span>{step.label}</span> : <Link href={step.href}>{step.label}</Link>}
                <span className="visually-hidden">{step.done ? "(done)" : "(to do)"}</span>
              </li>
            ))}
          </ol>
        </Panel>
      )}
      <UsageOverview />
      {counts && (
        <section className="inventory" aria-labelledby="inventory-heading">
          <h2 id="inventory-heading">In this organization</h2>
          <ul>
            {inventory.map((item) => (
              <li key={item.href}>
                <Link href={item.href}>
                  <strong>{cappedCount(item.count, item.atLeast ?? false)}</strong>{" "}
                  {item.count === 1 ? item.one : item.many}
                </Link>
              </li>
            ))}
          </ul>
        </section>
      )}
      <p className="muted">
        The REST API lives at <code>/api/v1</code>. Create a key on the <Link href="/keys">API keys</Link> page and read
        the <Link href="/docs">API docs</Link>.
      </p>
    </>
  );
}
