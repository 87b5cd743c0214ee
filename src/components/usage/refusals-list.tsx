"use client";
// The Executions page's "refused" list: runs refused before they ran (GET /usage/refusals). Nothing
// ran, so a refusal has no trace, input or credits; it says what was refused, for whom and why.
import Link from "next/link";
import { ErrorAlert, LoadMore, useCursorList } from "@/components/console";
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
      {refusals.isLoaded && rows.length === 0 && (
        <p className="muted">
          No run was refused{Object.values(filter).some(Boolean) ? " with these filters" : ""}. A turn refused for lack
          of credits (402) shows here.
        </p>
      )}
      {rows.length > 0 && (
        <div className="table-scroll table-cards" role="region" aria-label="Refused runs" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th>Time</th>
                <th>Refused</th>
                <th>Why</th>
                <th>Credits</th>
                <th>For</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((refusal) => (
                <tr key={refusal.id} data-testid="refusal-row">
                  <td className="muted nowrap" data-label="Time">
                    {new Date(refusal.createdAt).toLocaleString()}
                  </td>
                  <td style={{ minWidth: "9rem" }} data-label="Refused">
                    {refusal.appId && refusal.appKind ? (
                      <Link href={entityHref(refusal.appKind, refusal.appId)}>{refusal.appName || "Untitled"}</Link>
                    ) : (
                      <span className="muted">A deleted app</span>
                    )}
                    <div className="muted">refused before running: no trace</div>
                  </td>
                  <td className="nowrap" data-label="Why">
                    <span className="badge revoked">refused</span> <code>{refusal.code}</code>
                    {CODE_LABELS[refusal.code] && <div className="muted">{CODE_LABELS[refusal.code]}</div>}
                  </td>
                  <td className="nowrap" data-label="Credits">
                    0
                  </td>
                  <td className="muted" style={{ minWidth: "10rem" }} data-label="For">
                    {refusal.endUserId ? (
                      <>
                        <Link href={`/end-users/${refusal.endUserId}`} data-testid="refusal-end-user">
                          {refusal.endUserEmail ?? "A deleted end user"}
                        </Link>
                        {refusal.portalName ? ` in ${refusal.portalName}` : ""}
                        {refusal.planName && <div style={{ fontSize: "0.8rem" }}>plan {refusal.planName}</div>}
                      </>
                    ) : (
                      "The organization"
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore list={refusals} />
    </>
  );
}
