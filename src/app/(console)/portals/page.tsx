"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { PortalLink } from "@/components/portal/portal-link";
import { useTRPC } from "@/lib/trpc";
import { ErrorAlert, PageHeader, useMay } from "@/components/console";
import { MAX_NAME_CHARS } from "@/schemas/limits";

function Admissions({ portalId }: { portalId: string }) {
  const trpc = useTRPC();
  const admissions = useQuery(trpc.portals.admissions.queryOptions({ portalId }));
  if (!admissions.data) return null;
  if (admissions.data.length === 0) return <span className="muted">no groups admitted</span>;
  return (
    <span>
      {admissions.data.map((admission) => (
        <Link key={admission.groupId} href={`/groups/${admission.groupId}`} style={{ marginRight: "0.5rem" }}>
          {admission.groupName}
        </Link>
      ))}
    </span>
  );
}

export default function PortalsPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const portals = useQuery(trpc.portals.list.queryOptions({ limit: 200 }));
  const [name, setName] = useState("");
  const mayGrant = useMay("grant");
  const create = useMutation(
    trpc.portals.create.mutationOptions({
      onSuccess: ({ portal }) => {
        setName("");
        void queryClient.invalidateQueries({ queryKey: trpc.portals.list.queryKey() });
        router.push(`/portals/${portal.id}`);
      },
    }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ name });
  }

  return (
    <>
      <PageHeader
        title="Portals"
        description="Where end users sign in with a code sent to their email and use the apps their access allows. Send them the portal's link."
      />
      {!mayGrant && <p className="muted">Admins and owners create portals and change their settings.</p>}
      {mayGrant && (
        <form className="panel row" onSubmit={submit} aria-label="Create a portal">
          <label>
            Name
            <input required maxLength={MAX_NAME_CHARS} value={name} onChange={(e) => setName(e.target.value)} />
          </label>
          <button className="primary" type="submit" disabled={create.isPending} style={{ alignSelf: "flex-end" }}>
            Create portal
          </button>
          <ErrorAlert error={create.error} />
        </form>
      )}
      <div className="panel" style={{ overflowX: "auto" }}>
        {portals.isLoading && <p className="muted">Loading…</p>}
        <ErrorAlert error={portals.error} />
        {portals.data?.portals.length === 0 && (
          <p className="muted">
            {mayGrant
              ? "No portals yet: create one above, then send end users its link."
              : "No portals yet: an admin creates them."}
          </p>
        )}
        {portals.data && portals.data.portals.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Link</th>
                <th>Admitted groups</th>
              </tr>
            </thead>
            <tbody>
              {portals.data.portals.map((portal) => (
                <tr key={portal.id} data-testid="portal-row">
                  <td>
                    <Link href={`/portals/${portal.id}`}>{portal.name}</Link>
                  </td>
                  <td>
                    <PortalLink slug={portal.slug} />
                  </td>
                  <td>
                    <Admissions portalId={portal.id} />
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
