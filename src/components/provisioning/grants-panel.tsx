"use client";
// The Grants panel of an end user's and of a group's page: the grants in a table (the app, the
// portal it is limited to, more columns where the page has them), Remove for who may, and the
// form that grants another app.
import type { ReactNode } from "react";
import { ConfirmButton, DataTable, Panel, type Column } from "@/components/console";
import { EntityName } from "@/components/entity-picker";
import { GrantAppForm } from "./grant-app-form";

interface ShownGrant {
  id: string;
  targetId: string;
  deploymentId: string | null;
}

export function GrantsPanel<G extends ShownGrant>({
  grants,
  empty,
  targetHeader,
  anyPortal,
  more = [],
  actionsHeader,
  cards = false,
  mayRemove,
  onRemove,
  onGrant,
}: {
  grants: G[] | undefined;
  empty: string;
  /** The first column's name ("Target", "App"). */
  targetHeader: string;
  /** What the portal column says of a grant open in every portal. */
  anyPortal: string;
  /** Columns after the portal (where the grant comes from, when it expires). */
  more?: Column<G>[];
  actionsHeader: ReactNode;
  cards?: boolean;
  mayRemove: boolean;
  onRemove: (grantId: string) => void;
  onGrant: (appId: string, portalId: string | undefined) => void;
}) {
  return (
    <Panel title="Grants">
      <DataTable
        label="Grants table"
        rows={grants}
        rowKey={(grant) => grant.id}
        empty={empty}
        cards={cards}
        columns={[
          { key: "target", header: targetHeader, cell: (grant) => <EntityName kind="app" id={grant.targetId} /> },
          {
            key: "portal",
            header: "Portal",
            cell: (grant) => (grant.deploymentId ? <EntityName kind="portal" id={grant.deploymentId} /> : anyPortal),
          },
          ...more,
          {
            key: "actions",
            header: actionsHeader,
            cell: (grant) =>
              mayRemove && (
                <ConfirmButton
                  label="Remove"
                  title="Remove this grant?"
                  confirmLabel="Remove"
                  onConfirm={() => onRemove(grant.id)}
                />
              ),
          },
        ]}
      />
      <GrantAppForm onGrant={onGrant} />
    </Panel>
  );
}
