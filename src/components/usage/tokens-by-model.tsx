"use client";
// Tokens over the chosen range and by model (GET /usage?groupBy=model): what each model read and
// wrote, and the credits its calls were charged.
import { useQuery } from "@tanstack/react-query";
import { DataTable, ErrorAlert } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { UsageBars, type useUsageRange } from "./usage-chart";

export const TOKEN_SERIES = [
  { key: "inputTokens", label: "Input tokens", color: "var(--chart-1)" },
  { key: "outputTokens", label: "Output tokens", color: "var(--chart-2)" },
];

export function TokensByModel({
  range,
}: {
  range: Pick<ReturnType<typeof useUsageRange>, "from" | "to" | "interval">;
}) {
  const trpc = useTRPC();
  const usage = useQuery(
    trpc.usage.get.queryOptions({ from: range.from, to: range.to, interval: range.interval, groupBy: "model" }),
  );
  const report = usage.data;
  return (
    <>
      <h3>Tokens by model</h3>
      <ErrorAlert error={usage.error} />
      {report && (
        <>
          <UsageBars label={`Tokens by ${range.interval} (UTC)`} points={report.series} series={TOKEN_SERIES} />
          <DataTable
            label="Tokens by model"
            cards
            rows={report.groups?.filter((group) => group.totals.inputTokens > 0 || group.totals.outputTokens > 0)}
            rowKey={(group) => group.id ?? "none"}
            empty="No model call reported tokens in this range."
            columns={[
              { key: "model", header: "Model", cell: (group) => group.name },
              {
                key: "input",
                header: "Input tokens",
                cell: (group) => group.totals.inputTokens.toLocaleString(),
                sortValue: (group) => group.totals.inputTokens,
              },
              {
                key: "output",
                header: "Output tokens",
                cell: (group) => group.totals.outputTokens.toLocaleString(),
                sortValue: (group) => group.totals.outputTokens,
              },
              {
                key: "credits",
                header: "Credits",
                cell: (group) => group.totals.credits.toLocaleString(),
                sortValue: (group) => group.totals.credits,
              },
            ]}
          />
        </>
      )}
    </>
  );
}
