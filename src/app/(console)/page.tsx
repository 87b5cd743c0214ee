"use client";
import { useQuery } from "@tanstack/react-query";
import { CircleCheck, Circle } from "lucide-react";
import Link from "next/link";
import { ErrorAlert, PageHeader, Panel } from "@/components/console";
import { UsageOverview } from "@/components/usage/usage-overview";
import { useTRPC } from "@/lib/trpc";

export default function OverviewPage() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const overview = useQuery(trpc.overview.get.queryOptions());
  const organization = me.data?.organization;
  const counts = overview.data;

  const steps = counts
    ? [
        { done: counts.keys > 0, label: "Create an API key", href: "/keys" },
        { done: counts.knowledgebases > 0, label: "Create a knowledgebase", href: "/knowledge" },
        { done: counts.agents > 0, label: "Build an agent", href: "/agents" },
        { done: counts.apps > 0, label: "Make an app", href: "/apps" },
        { done: counts.publishedApps > 0, label: "Publish the app", href: "/apps" },
        { done: counts.conversations > 0, label: "Chat with it", href: "/chat" },
      ]
    : [];
  const stats = counts
    ? [
        { label: "Credits left", value: counts.creditsLeft, href: "/settings" },
        { label: "Credits spent", value: counts.creditsSpent, href: "/executions" },
        { label: "Pending reviews", value: counts.pendingReviews, href: "/reviews" },
        { label: "Knowledgebases", value: counts.knowledgebases, href: "/knowledge" },
        { label: "Agents", value: counts.agents, href: "/agents" },
        { label: "Flows", value: counts.flows, href: "/flows" },
        { label: "Apps", value: counts.apps, href: "/apps" },
        { label: "End users", value: counts.endUsers, href: "/end-users" },
        { label: "Portals", value: counts.portals, href: "/portals" },
        { label: "Members", value: counts.members, href: "/members" },
      ]
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
            </>
          )
        }
      />
      <ErrorAlert error={me.error ?? overview.error} />
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
      {counts && (
        <section aria-label="Counts">
          <div className="stat-grid">
            {stats.map((stat) => (
              <Link key={stat.label} className="stat" href={stat.href}>
                <span className="stat-value">{stat.value.toLocaleString()}</span>
                <span className="stat-label">{stat.label}</span>
              </Link>
            ))}
          </div>
        </section>
      )}
      <UsageOverview />
      <p className="muted">
        The REST API lives at <code>/api/v1</code>. Create a key on the <Link href="/keys">API keys</Link> page and read
        the <Link href="/docs">API docs</Link>.
      </p>
    </>
  );
}
