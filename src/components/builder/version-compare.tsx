"use client";
// The versions list's compare and rollback: what changed between two documents in words
// (src/lib/version-diff.ts), and "Make live" that names the version, asks first and can be undone.
import { ConfirmButton, notifyDone } from "@/components/console";
import { versionDiff } from "@/lib/version-diff";
import type { Doc } from "./use-draft-editor";

const MARK = { added: "+", removed: "−", changed: "~" } as const;

/** The changes from `before` to `after`, one line each, or `sameText` when there are none. */
export function VersionChanges({
  before,
  after,
  label,
  sameText,
}: {
  before: Doc;
  after: Doc;
  label: string;
  sameText: string;
}) {
  const changes = versionDiff(before, after);
  if (changes.length === 0) return <p className="muted">{sameText}</p>;
  return (
    <ul aria-label={label} className="version-changes" data-testid="version-changes">
      {changes.map((change, index) => (
        <li key={index} data-change={change.change}>
          <span aria-hidden className="muted">
            {MARK[change.change]}
          </span>{" "}
          {change.words}
        </li>
      ))}
    </ul>
  );
}

interface VersionRef {
  id: string;
  number: number;
}

/** "Version 5", or for a live version not loaded yet, "The version live before". */
const named = (version: { number: number | null }) =>
  version.number === null ? "The version that was live" : `Version ${version.number}`;

/**
 * Asks "Make version 3 live? Version 5 is live now", then deploys it; the toast's Undo makes the
 * version that was live before live again.
 */
export function MakeLiveButton({
  version,
  live,
  disabled,
  deploy,
}: {
  version: VersionRef;
  /** The version live now, if any (null: nothing is live; its number null: not loaded). */
  live: { id: string; number: number | null } | null;
  disabled: boolean;
  deploy: (versionId: string, onDone: () => void) => void;
}) {
  return (
    <ConfirmButton
      label="Make live"
      title={`Make version ${version.number} live?`}
      description={
        <p>
          {live
            ? `${live.number === null ? "Another version" : `Version ${live.number}`} is live now.`
            : "No version is live now."}{" "}
          API callers and end users get version {version.number} as soon as you confirm; the draft is not changed.
        </p>
      }
      confirmLabel={`Make version ${version.number} live`}
      destructive={false}
      disabled={disabled}
      needs="write"
      onConfirm={() =>
        deploy(version.id, () =>
          notifyDone(
            `Version ${version.number} is live.`,
            live ? () => deploy(live.id, () => notifyDone(`${named(live)} is live again.`)) : undefined,
          ),
        )
      }
    />
  );
}
