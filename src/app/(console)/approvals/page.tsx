"use client";
// Runs paused at a flow's approval node, oldest first: each links to the page where it is decided.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { DataTable, ErrorAlert, PageHeader, When } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import type { Approval } from "@/schemas/runs/runtime";
import { timeLeft } from "@/components/runtime/time-left";
import { fullWhen } from "@/lib/when";

export default function ApprovalsPage() {
  const trpc = useTRPC();
  const list = useQuery(trpc.runtime.approvals.queryOptions(undefined, { refetchInterval: 30_000 }));
  const total = list.data?.total ?? 0;
  return (
    <>
      <PageHeader
        title="Approvals"
        description="Runs that reached an approval step in a flow and wait for a member to approve or reject them. Nothing after the step runs until then; past its deadline the run fails."
      />
      <ErrorAlert error={list.error} />
      {total > (list.data?.approvals.length ?? 0) && (
        <p className="muted">
          The {list.data?.approvals.length} oldest of {total} are shown.
        </p>
      )}
      <DataTable<Approval>
        label="Runs waiting for approval"
        cards
        rows={list.data?.approvals}
        rowKey={(approval) => approval.executionId}
        rowTestId="approval-row"
        empty="No run is waiting for an approval."
        columns={[
          {
            key: "what",
            header: "What it asks",
            cell: (approval) => <Link href={`/approvals/${approval.executionId}`}>{approval.message}</Link>,
          },
          {
            key: "app",
            header: "App and flow",
            cell: (approval) => (
              <span>
                {approval.appName ?? "A deleted app"}
                <span className="muted"> · {approval.flowName ?? "a deleted flow"}</span>
              </span>
            ),
          },
          { key: "by", header: "Started by", cell: (approval) => approval.requestedBy },
          {
            key: "waiting",
            header: "Waiting since",
            nowrap: true,
            sortValue: (approval) => approval.createdAt,
            cell: (approval) => <When at={approval.createdAt} />,
          },
          {
            key: "deadline",
            header: "Decide",
            nowrap: true,
            sortValue: (approval) => approval.expiresAt,
            cell: (approval) => <span title={fullWhen(approval.expiresAt)}>{timeLeft(approval.expiresAt)}</span>,
          },
        ]}
      />
    </>
  );
}
