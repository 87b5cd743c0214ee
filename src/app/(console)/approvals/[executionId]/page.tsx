"use client";
// One run waiting for an approval: what it wants to do and why (the approval step's message, the
// app and flow, what it was asked, its inputs and variables, the steps before), and the decision
// with an optional comment. Decided runs show who decided, when and what came of it.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Check, X } from "lucide-react";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useState } from "react";
import { ConfirmButton, ErrorAlert, FormField, notifyDone, PageHeader, Panel, When } from "@/components/console";
import { ExecutionTrace } from "@/components/runtime/execution-trace";
import { MAX_APPROVAL_COMMENT_CHARS } from "@/schemas/limits";
import { timeLeft } from "@/components/runtime/time-left";
import { useTRPC } from "@/lib/trpc";
import "@/components/runtime/approvals.css";
import { fullWhen, whenWords } from "@/lib/when";

const STATUS_WORDS = {
  pending: "Waiting for a decision",
  approved: "Approved; the run is continuing",
  resuming: "Approved; the run is continuing",
  done: "Approved; the run continued",
  rejected: "Rejected; the run failed",
  timed_out: "Nobody decided in time; the run failed",
} as const;

function show(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/** The run's named values (its inputs, its variables) under a heading, or nothing when there are none. */
function NamedValues({ title, values }: { title: string; values: Record<string, unknown> }) {
  if (Object.keys(values).length === 0) return null;
  return (
    <>
      <h3>{title}</h3>
      <dl className="facts">
        {Object.entries(values).map(([key, value]) => (
          <div key={key} className="fact">
            <dt>{key}</dt>
            <dd className="approval-value">{show(value)}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}

export default function ApprovalPage() {
  const { executionId } = useParams<{ executionId: string }>();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [comment, setComment] = useState("");
  const detail = useQuery(trpc.runtime.approval.queryOptions({ executionId }));
  const decide = useMutation(
    trpc.runtime.decideApproval.mutationOptions({
      onSuccess: (_, input) => {
        notifyDone(input.decision === "approve" ? "Approved: the run continues." : "Rejected: the run ends.");
        void queryClient.invalidateQueries({ queryKey: trpc.runtime.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.overview.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.notifications.pathKey() });
      },
    }),
  );
  const data = detail.data;
  const approval = data?.approval;
  const send = (decision: "approve" | "reject") =>
    decide.mutate({ executionId, decision, ...(comment.trim() ? { comment: comment.trim() } : {}) });

  return (
    <>
      <PageHeader
        title={approval ? approval.message : "Approval"}
        description={approval ? STATUS_WORDS[approval.status] : undefined}
        back={{ href: "/approvals", label: "Approvals" }}
      />
      <ErrorAlert error={detail.error} />
      {detail.isPending && <p className="muted">Loading…</p>}
      {data && approval && (
        <div className="approval-page">
          <Panel title="What the run wants to do">
            <dl className="facts">
              <dt>App</dt>
              <dd>
                <Link href={`/apps/${approval.appId}`}>{approval.appName ?? "A deleted app"}</Link> (
                {approval.kind === "conversation" ? "conversation" : "transaction"})
              </dd>
              <dt>Flow and step</dt>
              <dd>
                <Link href={`/flows/${approval.flowId}/studio`}>{approval.flowName ?? "A deleted flow"}</Link> · step{" "}
                <code>{approval.nodeId}</code>
              </dd>
              <dt>Started by</dt>
              <dd>{approval.requestedBy}</dd>
              <dt>Waiting since</dt>
              <dd>
                <When at={approval.createdAt} />
              </dd>
              {approval.status === "pending" ? (
                <>
                  <dt>Decide</dt>
                  <dd title={fullWhen(approval.expiresAt)}>{timeLeft(approval.expiresAt)}, or the run fails</dd>
                </>
              ) : (
                <>
                  <dt>Decided</dt>
                  <dd>
                    {approval.decidedBy ?? "Nobody"}
                    {approval.decidedAt ? `, ${whenWords(approval.decidedAt)}` : ""}
                    {approval.comment ? `: “${approval.comment}”` : ""}
                  </dd>
                </>
              )}
            </dl>
            <h3>Asked</h3>
            <pre className="approval-value">{data.input}</pre>
            <NamedValues title="Inputs" values={data.inputs} />
            <NamedValues title="Variables so far" values={data.variables} />
          </Panel>

          {approval.status === "pending" && (
            <Panel title="Your decision">
              <FormField
                label="Comment (optional)"
                hint="Kept with the decision; an approved run reads it as the step's output."
              >
                <textarea
                  rows={3}
                  maxLength={MAX_APPROVAL_COMMENT_CHARS}
                  value={comment}
                  onChange={(e) => setComment(e.target.value)}
                />
              </FormField>
              <ErrorAlert error={decide.error} />
              <div className="approval-decision">
                <ConfirmButton
                  label="Approve"
                  title="Approve this run?"
                  description="The run continues from this step to its end."
                  confirmLabel="Approve"
                  destructive={false}
                  needs="write"
                  icon={<Check size={16} aria-hidden className="icon" />}
                  disabled={decide.isPending}
                  onConfirm={() => send("approve")}
                />
                <ConfirmButton
                  label="Reject"
                  title="Reject this run?"
                  description="The run ends failed, with your comment as the reason. Nothing after this step runs."
                  confirmLabel="Reject"
                  needs="write"
                  icon={<X size={16} aria-hidden className="icon" />}
                  disabled={decide.isPending}
                  onConfirm={() => send("reject")}
                />
              </div>
            </Panel>
          )}

          {data.execution && (
            <Panel title="The run so far">
              <ExecutionTrace execution={data.execution} />
            </Panel>
          )}
        </div>
      )}
    </>
  );
}
