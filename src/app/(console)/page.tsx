"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/lib/trpc";

export default function OverviewPage() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const organization = me.data?.organization;
  return (
    <>
      <h1>{organization?.name ?? "Overview"}</h1>
      {organization && (
        <div className="panel">
          <p>
            Plan <strong>{organization.plan}</strong> · <strong>{organization.credits}</strong> credits ·
            developer API {organization.plan === "free" ? "not included in this plan" : organization.apiEnabled ? "on" : "off"}
          </p>
          <p className="muted">
            The REST API lives at <code>/api/v1</code>. Create a key on the <Link href="/keys">API keys</Link> page and read the{" "}
            <Link href="/docs">API docs</Link>.
          </p>
        </div>
      )}
    </>
  );
}
