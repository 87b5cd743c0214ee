"use client";
// The Executions page's "refused" list: runs refused before they ran (GET /usage/refusals). Nothing
// ran, so a refusal has no trace, input or credits; it says what was refused, for whom and why.
import Link from "next/link";
import { DataTable, ErrorAlert, LoadMore, useCursorList, When } from "@/components/console";
import { entityHref } from "@/components/entity-picker";
import { useTRPC } from "@/lib/trpc";

const PAGE = 25;
const CODE_LABELS: Record<string, string> = { insufficient_credits: "out of credits" };

export function RefusalsList({
  filter,
}: {
  filter: { code?: string; appId?: string; endUserId?: string; portalId?: string };
}) {
  const trpc = useTRPC();
  const refusals = useCursorList(
    (cursor) => trpc.usage.refusals.queryOptions({ limit: PAGE, ...filter, ...(cursor ? { cursor } : {}) }),
    (page) => page.refusals,
  );
  const rows = refusals.items;
  return (
    <>
      {refusals.isLoading && <p className="muted">Loading…</p>}
      <ErrorAlert error={refusals.error} />
      {refusals.isLoaded && (
        <DataTable
          label="Refused runs"
          cards
          rows={rows}
          rowTestId="refusal-row"
          empty={`No run was refused${Object.values(filter).some(Boolean) ? " with these filters" : ""}. A turn refused for lack of credits (402) shows here.`}
          columns={[
            {
              key: "time",
              header: "Time",
              nowrap: true,
              cell: (refusal) => (
                <span className="muted">
                  <When at={refusal.createdAt} />
                </span>
              ),
            },
            {
              key: "refused",
              header: "Refused",
              cell: (refusal) => (
                <div className="cell-min-9">
                  {refusal.appId && refusal.appKind ? (
                    <Link href={entityHref(refusal.appKind, refusal.appId)}>{refusal.appName || "Untitled"}</Link>
                  ) : (
                    <span className="muted">A deleted app</span>
                  )}
                  <div className="muted">refused before running: no trace</div>
                </div>
              ),
            },
            {
              key: "why",
              header: "Why",
              nowrap: true,
              cell: (refusal) => (
                <>
                  <span className="badge revoked">refused</span> <code>{refusal.code}</code>
                  {CODE_LABELS[refusal.code] && <div className="muted">{CODE_LABELS[refusal.code]}</div>}
                </>
              ),
            },
            { key: "credits", header: "Credits", nowrap: true, cell: () => 0 },
            {
              key: "for",
              header: "For",
              cell: (refusal) => (
                <div className="muted cell-min-10">
                  {refusal.endUserId ? (
                    <>
                      <Link href={`/end-users/${refusal.endUserId}`} data-testid="refusal-end-user">
                        {refusal.endUserEmail ?? "A deleted end user"}
                      </Link>
                      {refusal.portalName ? ` in ${refusal.portalName}` : ""}
                      {refusal.planName && <div className="small">plan {refusal.planName}</div>}
                    </>
                  ) : (
                    "The organization"
                  )}
                </div>
              ),
            },
          ]}
        />
      )}
      <LoadMore list={refusals} />
    </>
  );
}
