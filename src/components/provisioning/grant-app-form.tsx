"use client";
// Granting an app to an end user or a group: the app picked by name, in every portal or one.
import { useState } from "react";
import { FormField, LoadMore } from "@/components/console";
import { EntityPicker } from "@/components/entity-picker";
import { usePortalList } from "./use-lists";

export function GrantAppForm({ onGrant }: { onGrant: (appId: string, portalId: string | undefined) => void }) {
  const portals = usePortalList();
  const [portalId, setPortalId] = useState("");
  return (
    <div className="row panel-footer align-start">
      <EntityPicker
        kinds={["app"]}
        label="Grant an app"
        emptyText="No apps yet: create one under Apps."
        onPick={(app) => onGrant(app.id, portalId || undefined)}
      />
      <FormField label="In">
        <select aria-label="Portal of the grant" value={portalId} onChange={(e) => setPortalId(e.target.value)}>
          <option value="">every portal</option>
          {portals.items.map((portal) => (
            <option key={portal.id} value={portal.id}>
              {portal.name} only
            </option>
          ))}
        </select>
      </FormField>
      <LoadMore list={portals} />
    </div>
  );
}
