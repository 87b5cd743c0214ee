"use client";
// The console home's usage: credits and turns by day (by week beyond a month) over the chosen range (last 7 days by
// default), each total beside the same length of time before it, the top apps, tokens by model, the end users
// closest to their limits, failures and refused turns.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Suspense } from "react";
import { DataTable, ErrorAlert, Panel } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { executionsHref, FAILURES, REFUSED } from "./executions-link";
import { TokensByModel } from "./tokens-by-model";
import { UsageBars, UsageEmpty, UsageRangePicker, useUsageRange } from "./usage-chart";

export const CREDITS_AND_TURNS = [
  { key: "credits", label: "Credits", color: "var(--chart-1)" },
  { key: "turns", label: "Turns", color: "var(--chart-2)" },
];

/** The runs refused before they ran, whatever the code. */
export const refusedTotal = (refusals: Record<string, number>) =>
  Object.values(refusals).reduce((sum, count) => sum + count, 0);

function Overview() {
  const trpc = useTRPC();
  const range = useUsageRange(7);
  const usage = useQuery(
    trpc.usage.get.queryOptions({ from: range.from, to: range.to, interval: range.interval, groupBy: "app" }),
  );
  // The same length of time just before the range, for the totals to be read against.
  const previous = useQuery(
    trpc.usage.get.queryOptions({
      from: new Date(2 * Date.parse(range.from) - Date.parse(range.to)).toISOString(),
      to: range.from,
      interval: range.interval,
    }),
  );
  const nearLimit = useQuery(trpc.usage.nearLimit.queryOptions({ limit: 5 }));
  const report = usage.data;
  const refused = report ? refusedTotal(report.refusals) : 0;
  const before = previous.data && { ...previous.data.totals, refused: refusedTotal(previous.data.refusals) };
  const ran =
    report && (report.totals.credits > 0 || report.totals.turns > 0 || report.totals.transactions > 0 || refused > 0);

  return (
    <Panel title="Usage" headingId="usage-heading">
      <UsageRangePicker range={range} />
      <ErrorAlert error={usage.error ?? nearLimit.error} />
      {report && !ran && (
        <UsageEmpty>
          Nothing ran in this range. Every conversation turn, transaction, test case and document search lands here as
          it finishes: try an app in <Link href="/chat">Chat</Link>, or give an end user a plan and a portal on the{" "}
          <Link href="/end-users">End users</Link> page.
        </UsageEmpty>
      )}
      {report && ran && (
        <>
          <div className="stat-grid">
            <Link className="stat" href="/executions">
              <span className="stat-value">{report.totals.credits.toLocaleString()}</span>
              <span className="stat-label">Credits spent</span>
              <Change now={report.totals.credits} before={before?.credits} days={range.days} />
            </Link>
            <Link className="stat" href="/executions">
              <span className="stat-value">{report.totals.turns.toLocaleString()}</span>
              <span className="stat-label">Turns</span>
              <Change now={report.totals.turns} before={before?.turns} days={range.days} />
            </Link>
            <Link className="stat" href={executionsHref({ status: FAILURES })} data-testid="usage-failures">
              <span className="stat-value">{report.totals.failures.toLocaleString()}</span>
              <span className="stat-label">Failures: see them</span>
              <Change now={report.totals.failures} before={before?.failures} days={range.days} />
            </Link>
            <Link className="stat" href={executionsHref({ status: REFUSED })} data-testid="usage-refused">
              <span className="stat-value">{refused.toLocaleString()}</span>
              <span className="stat-label">Refused before running: see them</span>
              <Change now={refused} before={before?.refused} days={range.days} />
            </Link>
          </div>
          <UsageBars
            label={`Credits and turns by ${range.interval} (UTC)`}
            points={report.series}
            series={CREDITS_AND_TURNS}
          />
          <h3>Top apps</h3>
          <DataTable
            label="Top apps"
            cards
            rows={report.groups?.filter((group) => group.totals.credits > 0 || group.totals.turns > 0).slice(0, 5)}
            rowKey={(group) => group.id ?? "none"}
            empty="No app ran in this range."
            columns={[
              {
                key: "app",
                header: "App",
                cell: (group) => (group.id ? <Link href={`/apps/${group.id}`}>{group.name}</Link> : group.name),
              },
              {
                key: "credits",
                header: "Credits",
                cell: (group) => group.totals.credits.toLocaleString(),
                sortValue: (group) => group.totals.credits,
              },
              {
                key: "turns",
                header: "Turns",
                cell: (group) => group.totals.turns.toLocaleString(),
                sortValue: (group) => group.totals.turns,
              },
              {
                key: "failures",
                header: "Failures",
                cell: (group) => group.totals.failures.toLocaleString(),
                sortValue: (group) => group.totals.failures,
              },
            ]}
          />
          <TokensByModel range={range} />
        </>
      )}
      <h3>Closest to their limits</h3>
      <DataTable
        label="End users closest to their limits"
        rows={nearLimit.data?.endUsers}
        empty="No end user has used credits from a plan yet."
        columns={[
          {
            key: "user",
            header: "End user",
            cell: (user) => <Link href={`/end-users/${user.id}`}>{user.fullName || user.email}</Link>,
          },
          {
            key: "used",
            header: "Credits used",
            nowrap: true,
            cell: (user) => (
              <>
                {user.used} / {user.allowance}{" "}
                <progress
                  max={Math.max(1, user.allowance)}
                  value={user.used}
                  aria-label={`${user.email}: credits used`}
                />
              </>
            ),
            sortValue: (user) => user.used / Math.max(1, user.allowance),
          },
        ]}
      />
    </Panel>
  );
}

/** A total against the same number of days before the range: "3 more than the 7 days before". */
function Change({ now, before, days }: { now: number; before: number | undefined; days: number }) {
  if (before === undefined) return null;
  const span = days === 1 ? "the day before" : `the ${days} days before`;
  const difference = now - before;
  const words =
    difference === 0
      ? `Same as ${span}`
      : `${Math.abs(difference).toLocaleString()} ${difference > 0 ? "more" : "fewer"} than ${span}`;
  return (
    <span className="stat-change" data-testid="stat-change">
      {words}
    </span>
  );
}

/** The range lives in the URL, which a page reads inside Suspense. */
export function UsageOverview() {
  return (
    <Suspense fallback={<p className="muted">Loading usage…</p>}>
      <Overview />
    </Suspense>
  );
}
