"use client";
// An end user's credits as a ledger: each run's charge (linked to its trace), each bonus (who and why)
// and each monthly reset of a pool, newest first.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { CopyButton, DataTable, ErrorAlert, Panel, When } from "@/components/console";
import { useTRPC } from "@/lib/trpc";

const KIND_WORDS = { charge: "Run charged", bonus: "Bonus", reset: "Pool reset" } as const;

export function CreditLedgerPanel({ endUserId }: { endUserId: string }) {
  const trpc = useTRPC();
  const ledger = useQuery(trpc.endUsers.creditLedger.queryOptions({ endUserId }));
  const entries = ledger.data?.entries;
  return (
    <Panel title="Credit ledger">
      <p className="muted">
        Every charge, bonus and reset of their credits, newest first (the last 100).{" "}
        <Link href={`/executions?endUser=${endUserId}`}>All their runs</Link>
      </p>
      <ErrorAlert error={ledger.error} />
      <DataTable
        label="Credit ledger"
        rows={entries}
        rowKey={(entry) => `${entry.kind}:${entry.at}:${entry.executionId ?? entry.planName ?? ""}`}
        rowTestId="ledger-entry"
        empty="No charges, bonuses or resets yet."
        cards
        columns={[
          {
            key: "at",
            header: "When",
            nowrap: true,
            cell: (entry) => <When at={entry.at} />,
          },
          { key: "kind", header: "What", nowrap: true, cell: (entry) => KIND_WORDS[entry.kind] },
          {
            key: "credits",
            header: "Credits",
            nowrap: true,
            cell: (entry) =>
              entry.credits === null ? (
                <span className="muted">back to the allowance</span>
              ) : (
                <strong>{entry.credits > 0 ? `+${entry.credits}` : entry.credits}</strong>
              ),
          },
          {
            key: "detail",
            header: "Details",
            cell: (entry) =>
              entry.kind === "charge" ? (
                <span>
                  {entry.itemName || "A deleted item"}
                  {entry.status !== "succeeded" && <span className="muted"> ({entry.status})</span>} ·{" "}
                  {entry.executionId && (
                    <>
                      <Link
                        href={`/executions?endUser=${endUserId}&run=${entry.executionId}`}
                        aria-label={`The run ${entry.executionId.slice(0, 8)}: its trace`}
                      >
                        run <code>{entry.executionId.slice(0, 8)}</code>
                      </Link>{" "}
                      <CopyButton text={entry.executionId} />
                    </>
                  )}
                </span>
              ) : entry.kind === "bonus" ? (
                <span>
                  {entry.planName}
                  {entry.by && ` · by ${entry.by}`}
                  {entry.reason && ` · “${entry.reason}”`}
                </span>
              ) : (
                entry.planName
              ),
          },
        ]}
      />
    </Panel>
  );
}
