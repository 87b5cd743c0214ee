"use client";
// One action over the end users chosen in the list: grant access to an app, add to a group, or
// revoke. Each end user's outcome comes back; refusals are listed with their reason.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button, ConfirmDialog, ErrorAlert, notifyDone, Select } from "@/components/console";
import { EntityPicker, type Entity } from "@/components/entity-picker";
import { useTRPC } from "@/lib/trpc";

type Action = "grant" | "add_to_group" | "revoke";

export function EndUserBulkActions({
  selected,
  emails,
  onDone,
}: {
  selected: string[];
  /** Emails of the chosen end users shown on this page, to name refusals. */
  emails: Map<string, string>;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [action, setAction] = useState<Action | "">("");
  const [target, setTarget] = useState<Entity | null>(null);
  const [confirming, setConfirming] = useState(false);
  const bulk = useMutation(
    trpc.endUsers.bulk.mutationOptions({
      onSuccess: (result) => {
        void queryClient.invalidateQueries({ queryKey: trpc.endUsers.list.queryKey() });
        const count = (outcome: string) => result.results.filter((r) => r.outcome === outcome).length;
        notifyDone(`${count("changed")} changed, ${count("unchanged")} already so, ${count("refused")} refused.`);
        if (count("refused") === 0) {
          setAction("");
          setTarget(null);
          onDone();
        }
      },
    }),
  );
  const refused = bulk.data?.results.filter((r) => r.outcome === "refused") ?? [];
  const n = selected.length;
  const people = `${n} end user${n === 1 ? "" : "s"}`;

  function run() {
    if (action === "grant" && target) bulk.mutate({ action, appId: target.id, endUserIds: selected });
    else if (action === "add_to_group" && target) bulk.mutate({ action, groupId: target.id, endUserIds: selected });
    else if (action === "revoke") bulk.mutate({ action, endUserIds: selected });
  }

  return (
    <div className="bulk-bar" role="group" aria-label="Bulk actions">
      <strong>{people} selected</strong>
      <Select
        aria-label="Action"
        value={action}
        onChange={(e) => {
          setAction(e.target.value as Action | "");
          setTarget(null);
          bulk.reset();
        }}
        options={[
          { value: "grant", label: "Grant access to an app" },
          { value: "add_to_group", label: "Add to a group" },
          { value: "revoke", label: "Revoke access" },
        ]}
        placeholder="Choose an action…"
      />
      {(action === "grant" || action === "add_to_group") &&
        (target ? (
          <span>
            {target.name}{" "}
            <button type="button" onClick={() => setTarget(null)}>
              Change
            </button>
          </span>
        ) : (
          <EntityPicker
            kinds={action === "grant" ? ["app"] : ["group"]}
            label={action === "grant" ? "App" : "Group"}
            emptyText={action === "grant" ? "No apps yet." : "No groups yet: create one under User groups."}
            onPick={setTarget}
          />
        ))}
      {action && (
        <Button
          variant={action === "revoke" ? "danger" : "primary"}
          disabled={bulk.isPending || (action !== "revoke" && !target)}
          onClick={() => (action === "revoke" ? setConfirming(true) : run())}
        >
          {action === "revoke" ? `Revoke ${people}` : `Apply to ${people}`}
        </Button>
      )}
      <ErrorAlert error={bulk.error} />
      {refused.length > 0 && (
        <ul className="bulk-refusals" aria-label="Refused">
          {refused.map((r) => (
            <li key={r.endUserId}>
              {emails.get(r.endUserId) ?? r.endUserId}: {r.error?.message}
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={confirming}
        title={`Revoke ${people}?`}
        confirmLabel="Revoke"
        onConfirm={() => {
          setConfirming(false);
          run();
        }}
        onClose={() => setConfirming(false)}
      >
        Their portal sessions end at once and they lose access to every app until they are provisioned again.
      </ConfirmDialog>
    </div>
  );
}
