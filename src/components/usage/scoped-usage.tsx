"use client";
// An end user's usage on their console page: credits and turns by day (last 30 days by default),
// with their failures and refused turns.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Suspense } from "react";
import { ErrorAlert } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { UsageBars, UsageEmpty, UsageRangePicker, useUsageRange } from "./usage-chart";
import { CREDITS_AND_TURNS } from "./usage-overview";

function Usage({ endUserId }: { endUserId: string }) {
  const trpc = useTRPC();
  const range = useUsageRange(30);
  const usage = useQuery(trpc.usage.scoped.queryOptions({ from: range.from, to: range.to, interval: "day", endUserId }));
  const report = usage.data;
  const refused = report ? Object.values(report.refusals).reduce((sum, count) => sum + count, 0) : 0;
  return (
    <section className="panel" aria-labelledby="end-user-usage">
      <h2 id="end-user-usage" style={{ marginTop: 0 }}>
        Usage
      </h2>
      <UsageRangePicker range={range} />
      <ErrorAlert error={usage.error} />
      {report && report.totals.credits + report.totals.turns + report.totals.transactions + refused === 0 ? (
        <UsageEmpty>
          No runs for this end user in this range. Their turns in a portal, and the API&apos;s runs made on their behalf (<code>endUserId</code>), show here as they finish.
        </UsageEmpty>
      ) : (
        report && (
          <>
            <p>
              {report.totals.credits.toLocaleString()} credits, {report.totals.turns.toLocaleString()} turns,{" "}
              <Link href={`/executions?endUser=${endUserId}&status=failed`}>{report.totals.failures.toLocaleString()} failures</Link>, {refused.toLocaleString()} refused for lack
              of credits.
            </p>
            <UsageBars label="Their credits and turns by day (UTC)" points={report.series} series={CREDITS_AND_TURNS} />
          </>
        )
      )}
    </section>
  );
}

export function EndUserUsage({ endUserId }: { endUserId: string }) {
  return (
    <Suspense fallback={<p className="muted">Loading usage…</p>}>
      <Usage endUserId={endUserId} />
    </Suspense>
  );
}
