"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/lib/trpc";

function Admissions({ portalId }: { portalId: string }) {
  const trpc = useTRPC();
  const admissions = useQuery(trpc.portals.admissions.queryOptions({ portalId }));
  if (!admissions.data) return null;
  if (admissions.data.length === 0) return <span className="muted">no groups admitted</span>;
  return (
    <span>
      {admissions.data.map((admission) => (
        <a key={admission.groupId} href={`/groups/${admission.groupId}`} style={{ marginRight: "0.5rem" }}>
          {admission.groupName}
        </a>
      ))}
    </span>
  );
}

export default function PortalsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const portals = useQuery(trpc.portals.list.queryOptions({ limit: 200 }));
  const [name, setName] = useState("");
  const create = useMutation(
    trpc.portals.create.mutationOptions({
      onSuccess: () => {
        setName("");
        void queryClient.invalidateQueries({ queryKey: trpc.portals.list.queryKey() });
      },
    }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ name });
  }

  return (
    <>
      <h1>Portals</h1>
      <form className="panel row" onSubmit={submit} aria-label="Create a portal">
        <label>
          Name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <button className="primary" type="submit" disabled={create.isPending} style={{ alignSelf: "flex-end" }}>
          Create portal
        </button>
        {create.error && <p role="alert" className="error">{errorMessage(create.error)}</p>}
      </form>
      <div className="panel">
        {portals.data?.portals.length === 0 && <p className="muted">No portals yet.</p>}
        {portals.data && portals.data.portals.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Admitted groups</th>
              </tr>
            </thead>
            <tbody>
              {portals.data.portals.map((portal) => (
                <tr key={portal.id}>
                  <td>{portal.name}</td>
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
