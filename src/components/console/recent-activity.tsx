"use client";
// The last events of one item (GET /audit-events filtered by target), at the bottom of the item's
// own page, with a link to the Audit log filtered the same way. Admins only, as the log is.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { doorWords, eventWords } from "@/lib/change-words";
import { useTRPC } from "@/lib/trpc";
import { useMay } from "./app-shell";
import { When } from "./when";

const SHOWN = 5;

export function RecentActivity({ targetId }: { targetId: string }) {
  const isAdmin = useMay("settings");
  if (!isAdmin) return null;
  return <RecentActivityPanel targetId={targetId} />;
}

function RecentActivityPanel({ targetId }: { targetId: string }) {
  const trpc = useTRPC();
  const events = useQuery(trpc.audit.list.queryOptions({ targetId, limit: SHOWN }));
  const logLink = `/audit-log?targetId=${encodeURIComponent(targetId)}`;
  return (
    <section className="panel recent-activity" aria-labelledby={`activity-${targetId}`}>
      <h2 id={`activity-${targetId}`}>Recent activity</h2>
      {events.isLoading && <p className="muted">Loading…</p>}
      {events.error && <p className="muted">The activity of this item could not be read.</p>}
      {events.data && events.data.auditEvents.length === 0 && <p className="muted">Nothing recorded yet.</p>}
      {events.data && events.data.auditEvents.length > 0 && (
        <ul className="recent-activity-list">
          {events.data.auditEvents.map((event) => (
            <li key={event.id}>
              <span>{eventWords(event)}</span>{" "}
              <span className="muted">
                by {event.actor.label} {doorWords(event.door)}, <When at={event.occurredAt} />
              </span>
            </li>
          ))}
        </ul>
      )}
      <Link href={logLink}>See everything in the Audit log</Link>
    </section>
  );
}
