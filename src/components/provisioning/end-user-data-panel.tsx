"use client";
// An end user's data rights on their page: download everything held about them as one JSON file,
// or erase it (GET /end-users/{id}/export, streamed through /api/console/end-users/{id}/export,
// and POST /end-users/{id}/erase; docs/provisioning.md).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmButton, ErrorAlert, Panel, useMay } from "@/components/console";
import { useTRPC } from "@/lib/trpc";

export function EndUserDataPanel({ endUserId, email }: { endUserId: string; email: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const mayExport = useMay("settings");
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<unknown>(null);
  const erase = useMutation(
    trpc.endUsers.erase.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.endUsers.pathKey() });
        router.replace("/end-users");
      },
    }),
  );

  async function download() {
    setExporting(true);
    setExportError(null);
    try {
      // Streamed by the server as it is read (GET /end-users/{id}/export's stream), whatever the history's length.
      const response = await fetch(`/api/console/end-users/${encodeURIComponent(endUserId)}/export`);
      if (!response.ok) {
        const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
        throw new Error(body?.error?.message ?? `The export failed (${response.status}).`);
      }
      const url = URL.createObjectURL(await response.blob());
      const link = Object.assign(window.document.createElement("a"), {
        href: url,
        download: `end-user-${endUserId}.json`,
      });
      link.click();
      URL.revokeObjectURL(url);
    } catch (error) {
      setExportError(error);
    } finally {
      setExporting(false);
    }
  }

  return (
    <Panel title="Personal data">
      <p className="muted">
        Hand this person everything held about them, or erase it on their request. Erasing deletes their conversations,
        messages and sessions and replaces their address and name everywhere; what their runs cost stays in usage.
      </p>
      <ErrorAlert error={exportError ?? erase.error} />
      <div className="row">
        <button type="button" onClick={() => void download()} disabled={!mayExport || exporting}>
          {exporting ? "Preparing…" : "Download their data (JSON)"}
        </button>
        <ConfirmButton
          label="Erase their data"
          title={`Erase everything about ${email}?`}
          description="Their conversations, messages, sessions and notebook are deleted, and their address and name are replaced everywhere, the audit log included. This cannot be undone."
          confirmLabel="Erase for good"
          onConfirm={() => erase.mutate({ endUserId })}
          needs="delete"
        />
      </div>
    </Panel>
  );
}
