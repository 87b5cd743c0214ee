"use client";
// Granting an app to an end user or a group: the app picked by name, in every portal or one.
import { useState } from "react";
import { FormField, LoadMore, Select } from "@/components/console";
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
        <Select
          aria-label="Portal of the grant"
          value={portalId}
          onChange={(e) => setPortalId(e.target.value)}
          options={portals.items.map((portal) => ({ value: portal.id, label: `${portal.name} only` }))}
          placeholder="every portal"
        />
      </FormField>
      <LoadMore list={portals} />
    </div>
  );
}
