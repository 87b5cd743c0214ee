"use client";
// The usage of one end user, app or portal on its console page: credits and turns by day, or by week
// beyond a month (last 30 days by default), with links to its failed runs and its refused ones.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Suspense, type ReactNode } from "react";
import { ErrorAlert, Panel } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { UsageBars, UsageEmpty, UsageRangePicker, useUsageRange } from "./usage-chart";
import { executionsHref, FAILURES, REFUSED } from "./executions-link";
import { CREDITS_AND_TURNS, refusedTotal } from "./usage-overview";

const counted = (count: number, noun: string) => `${count.toLocaleString()} ${noun}${count === 1 ? "" : "s"}`;

export type UsageScope = { endUserId: string } | { appId: string } | { portalId: string };

/** The Executions page's filter (its URL keys) for the scope. */
function filterOf(scope: UsageScope): Record<string, string> {
  if ("endUserId" in scope) return { endUser: scope.endUserId };
  if ("appId" in scope) return { item: scope.appId, itemKind: "app" };
  return { portal: scope.portalId };
}

function Usage({ scope, whose, empty }: { scope: UsageScope; whose: string; empty: ReactNode }) {
  const trpc = useTRPC();
  const range = useUsageRange(30);
  const usage = useQuery(
    trpc.usage.scoped.queryOptions({ from: range.from, to: range.to, interval: range.interval, ...scope }),
  );
  const report = usage.data;
  const refused = report ? refusedTotal(report.refusals) : 0;
  const filter = filterOf(scope);
  return (
    <Panel title="Usage" headingId="scoped-usage">
      <UsageRangePicker range={range} />
      <ErrorAlert error={usage.error} />
      {report &&
      report.totals.credits + report.totals.turns + report.totals.transactions + report.totals.testRuns + refused ===
        0 ? (
        <UsageEmpty>{empty}</UsageEmpty>
      ) : (
        report && (
          <>
            <p>
              {counted(report.totals.credits, "credit")}, {counted(report.totals.turns, "turn")},{" "}
              {counted(report.totals.transactions, "transaction")},{" "}
              <Link href={executionsHref({ ...filter, status: FAILURES })} data-testid="scoped-usage-failures">
                {counted(report.totals.failures, "failure")}
              </Link>
              ,{" "}
              <Link href={executionsHref({ ...filter, status: REFUSED })} data-testid="scoped-usage-refused">
                {refused.toLocaleString()} refused
              </Link>{" "}
              before running.
            </p>
            <UsageBars
              label={`${whose} credits and turns by ${range.interval} (UTC)`}
              points={report.series}
              series={CREDITS_AND_TURNS}
            />
          </>
        )
      )}
    </Panel>
  );
}

/** The range lives in the URL, which a page reads inside Suspense. */
export function ScopedUsage(props: { scope: UsageScope; whose: string; empty: ReactNode }) {
  return (
    <Suspense fallback={<p className="muted">Loading usage…</p>}>
      <Usage {...props} />
    </Suspense>
  );
}
