"use client";
// CSV import of end users: a dry run first that says, row by row, what would be created,
// updated, left unchanged or refused (and why); then the same file applied.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type ChangeEvent } from "react";
import { Button, DataTable, ErrorAlert, FormField, notifyDone, Panel } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { MAX_IMPORT_CSV_CHARS, MAX_IMPORT_ROWS } from "@/schemas/limits";
import type { ImportEndUsersOutput } from "@/schemas/provisioning/end-user-batches";
import "./provisioning.css";

const OUTCOME_WORDS = { created: "Create", updated: "Update", unchanged: "No change", refused: "Refused" } as const;
const FIELD_WORDS: Record<string, string> = {
  fullName: "name",
  tierPlanIds: "plan",
  groupIds: "groups",
  revokedAt: "restores access",
  grants: "grants",
};

export function EndUserImport({ onClose }: { onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [csv, setCsv] = useState("");
  const [fileName, setFileName] = useState<string | null>(null);
  // New end users are counted, not listed, unless asked: what needs a look is what changes or is refused.
  const [everyRow, setEveryRow] = useState(false);
  const preview = useMutation(trpc.endUsers.import.mutationOptions());
  const apply = useMutation(
    trpc.endUsers.import.mutationOptions({
      onSuccess: (result) => {
        void queryClient.invalidateQueries({ queryKey: trpc.endUsers.list.queryKey() });
        notifyDone(
          `Imported: ${result.summary.created} created, ${result.summary.updated} updated, ${result.summary.refused} refused.`,
        );
      },
    }),
  );
  const shown = apply.data ?? preview.data;

  async function readFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    setFileName(file.name);
    setCsv(await file.text());
    preview.reset();
    apply.reset();
  }

  const willChange = preview.data ? preview.data.summary.created + preview.data.summary.updated : 0;
  return (
    <Panel title="Import end users from CSV" label="Import end users from CSV">
      <p className="muted">
        The first line names the columns: <code>email</code>, <code>name</code>, <code>plan</code>, <code>groups</code>{" "}
        (plans and groups by name, several separated by <code>;</code>). Each row is provisioned as the API would; up to{" "}
        {MAX_IMPORT_ROWS.toLocaleString()} rows. Nothing is written until you apply the dry run.
      </p>
      <CsvSource
        csv={csv}
        fileName={fileName}
        onFile={(event) => void readFile(event)}
        onChange={(text) => {
          setCsv(text);
          preview.reset();
          apply.reset();
        }}
      />
      <ErrorAlert error={preview.error ?? apply.error} />
      <div className="row">
        <button
          type="button"
          disabled={!csv.trim() || preview.isPending}
          onClick={() => preview.mutate({ csv, dryRun: true })}
        >
          {preview.isPending ? "Checking…" : "Dry run"}
        </button>
        <Button
          variant="primary"
          disabled={!preview.data || willChange === 0 || apply.isPending || Boolean(apply.data)}
          onClick={() => apply.mutate({ csv, dryRun: false })}
        >
          {apply.isPending
            ? "Applying…"
            : preview.data
              ? `Apply ${willChange} change${willChange === 1 ? "" : "s"}`
              : "Apply"}
        </Button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {shown && <ImportResult shown={shown} everyRow={everyRow} setEveryRow={setEveryRow} />}
    </Panel>
  );
}

/** What the dry run would do (or the import did), the rows that change or are refused, and every row on request. */
function ImportResult({
  shown,
  everyRow,
  setEveryRow,
}: {
  shown: ImportEndUsersOutput;
  everyRow: boolean;
  setEveryRow: (everyRow: boolean) => void;
}) {
  return (
    <>
      <p role="status" data-testid="import-summary">
        {shown.dryRun ? "Dry run, nothing written: " : "Applied: "}
        {shown.summary.created} {shown.dryRun ? "to create" : "created"}, {shown.summary.updated}{" "}
        {shown.dryRun ? "to update" : "updated"}, {shown.summary.unchanged} unchanged, {shown.summary.refused} refused.
      </p>
      {shown.summary.created > 0 && (
        <label className="inline">
          <input type="checkbox" checked={everyRow} onChange={(e) => setEveryRow(e.target.checked)} />
          List the {shown.summary.created} new end user{shown.summary.created === 1 ? "" : "s"} too
        </label>
      )}
      <DataTable
        label="Import rows"
        rows={shown.rows.filter(
          (row) => row.outcome === "updated" || row.outcome === "refused" || (everyRow && row.outcome === "created"),
        )}
        rowKey={(row) => String(row.line)}
        rowTestId="import-row"
        empty={
          shown.summary.created > 0
            ? "Nothing to update and nothing refused."
            : "Every row is already as the file says."
        }
        cards
        columns={[
          { key: "line", header: "Line", nowrap: true, cell: (row) => row.line, sortValue: (row) => row.line },
          { key: "email", header: "Email", cell: (row) => row.email },
          {
            key: "outcome",
            header: "Outcome",
            nowrap: true,
            sortValue: (row) => row.outcome,
            cell: (row) => (
              <span className={row.outcome === "refused" ? "badge revoked" : "badge"}>
                {OUTCOME_WORDS[row.outcome]}
              </span>
            ),
          },
          {
            key: "why",
            header: "What changes, or why not",
            cell: (row) =>
              row.error
                ? row.error.message
                : row.changes.length
                  ? row.changes.map((field) => FIELD_WORDS[field] ?? field).join(", ")
                  : row.outcome === "created"
                    ? "new end user"
                    : "",
          },
        ]}
      />
    </>
  );
}

/** The CSV, from a file or pasted. */
function CsvSource({
  csv,
  fileName,
  onFile,
  onChange,
}: {
  csv: string;
  fileName: string | null;
  onFile: (event: ChangeEvent<HTMLInputElement>) => void;
  onChange: (csv: string) => void;
}) {
  return (
    <>
      <div className="row">
        <FormField label="CSV file">
          <input type="file" accept=".csv,text/csv" onChange={onFile} />
        </FormField>
      </div>
      <FormField label="Or paste it" hint={fileName ? `Read from ${fileName}` : undefined}>
        <textarea
          rows={5}
          maxLength={MAX_IMPORT_CSV_CHARS}
          value={csv}
          spellCheck={false}
          placeholder={"email,name,plan,groups\nada@example.com,Ada Lovelace,Pro,Beta testers"}
          onChange={(e) => onChange(e.target.value)}
        />
      </FormField>
    </>
  );
}
