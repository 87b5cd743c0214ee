"use client";
import Link from "next/link";
import { useTRPC } from "@/lib/trpc";
import { ListTable, PageHeader, Panel, useCursorList } from "@/components/console";

export default function ChatIndexPage() {
  const trpc = useTRPC();
  const apps = useCursorList(
    (cursor) => trpc.apps.list.queryOptions({ limit: 50, ...(cursor ? { cursor } : {}) }),
    (page) => page.apps,
  );
  return (
    <>
      <PageHeader title="Chat" />
      <p className="muted">
        Talk to any published app as it runs in production. Each message is one execution: 1 credit, or its models&apos;
        price when the organization prices them.
      </p>
      <Panel>
        <ListTable
          list={apps}
          label="Published apps"
          empty={
            <>
              No published apps yet. <Link href="/apps">Build and publish one</Link> to chat with it.
            </>
          }
          columns={[
            {
              key: "app",
              header: "App",
              sortValue: (app) => app.name,
              cell: (app) => <Link href={`/chat/${app.id}`}>{app.name}</Link>,
            },
            {
              key: "description",
              header: "Description",
              cell: (app) => <span className="muted">{app.description}</span>,
            },
            {
              key: "conversation",
              header: "Conversation",
              nowrap: true,
              cell: (app) =>
                app.conversationEnabled === false ? (
                  <span className="badge revoked">Turned off</span>
                ) : (
                  <span className="badge">On</span>
                ),
            },
          ]}
        />
      </Panel>
    </>
  );
}
