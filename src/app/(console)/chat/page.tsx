"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/lib/trpc";
import { ErrorAlert, PageHeader } from "@/components/console";

export default function ChatIndexPage() {
  const trpc = useTRPC();
  const apps = useQuery(trpc.apps.list.queryOptions({ limit: 200 }));
  return (
    <>
      <PageHeader title="Chat" />
      <p className="muted">
        Talk to any published app as it runs in production. Each message is one execution (1 credit).
      </p>
      <div className="panel">
        {apps.isLoading && <p className="muted">Loading…</p>}
        <ErrorAlert error={apps.error} />
        {apps.data && apps.data.apps.length === 0 && (
          <p className="muted">
            No published apps yet. <Link href="/apps">Build and publish one</Link> to chat with it.
          </p>
        )}
        {apps.data && apps.data.apps.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>App</th>
                <th>Description</th>
                <th>Conversation</th>
              </tr>
            </thead>
            <tbody>
              {apps.data.apps.map((app) => (
                <tr key={app.id}>
                  <td>
                    <Link href={`/chat/${app.id}`}>{app.name}</Link>
                  </td>
                  <td className="muted">{app.description}</td>
                  <td>
                    {app.conversationEnabled === false ? (
                      <span className="badge revoked">Turned off</span>
                    ) : (
                      <span className="badge">On</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}
