"use client";
// Granting an app to an end user or a group: the app picked by name, in every portal or one.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { EntityPicker } from "@/components/entity-picker";
import { useTRPC } from "@/lib/trpc";

export function GrantAppForm({ onGrant }: { onGrant: (appId: string, portalId: string | undefined) => void }) {
  const trpc = useTRPC();
  const portals = useQuery(trpc.portals.list.queryOptions({ limit: 200 }));
  const [portalId, setPortalId] = useState("");
  return (
    <div className="row" style={{ marginTop: "0.75rem", alignItems: "flex-start" }}>
      <EntityPicker
        kinds={["app"]}
        label="Grant an app"
        emptyText="No apps yet: create one under Apps."
        onPick={(app) => onGrant(app.id, portalId || undefined)}
      />
      <label>
        In
        <select aria-label="Portal of the grant" value={portalId} onChange={(e) => setPortalId(e.target.value)}>
          <option value="">every portal</option>
          {portals.data?.portals.map((portal) => (
            <option key={portal.id} value={portal.id}>
              {portal.name} only
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
