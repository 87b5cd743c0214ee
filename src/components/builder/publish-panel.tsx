"use client";
// The one publish block of every builder editor (agents, flows, apps): what is live and whether
// the draft differs from it, a short checklist of what publishing needs, notes, and the button.
import { useMutation } from "@tanstack/react-query";
import { Circle, CircleCheck } from "lucide-react";
import Link from "next/link";
import { useRef, useState } from "react";
import { Button, ErrorAlert, FormField, Panel } from "@/components/console";
import { newIdempotencyKey, useTRPCClient, type CallContext } from "@/lib/trpc";
import { MAX_VERSION_NOTES_CHARS } from "@/schemas/limits";
import { appErrorOf, ONE, type Doc, type KindPlural } from "./use-draft-editor";

/** One thing publishing needs; `href` leads to where it is done. */
export interface PublishCheck {
  label: string;
  done: boolean;
  href?: string;
}

type PublishClient = Record<
  KindPlural,
  { publish: { mutate: (input: Doc, options: { context: CallContext }) => Promise<Doc> } }
>;

/**
 * One Idempotency-Key per intent to publish: a double-click, or a retry after an answer lost on
 * the way, makes one version; the next intent (after a success or a refusal) gets a new key.
 */
function usePublish(kind: KindPlural, onSuccess: (data: Doc) => Promise<void>) {
  const client = useTRPCClient() as unknown as PublishClient;
  const intentKey = useRef<string | null>(null);
  return useMutation({
    mutationFn: (body: Doc) => {
      intentKey.current ??= newIdempotencyKey();
      return client[kind].publish.mutate(body, { context: { idempotencyKey: intentKey.current } });
    },
    onSuccess: async (data) => {
      intentKey.current = null;
      await onSuccess(data);
    },
    onError: (error) => {
      // The server answered (a refusal frees the key there too); only a lost answer keeps the key for the retry.
      if (appErrorOf(error).code !== undefined) intentKey.current = null;
    },
  });
}

/** What is live, in one line: none yet, or the live version and whether the draft has moved on. */
function liveWords(kind: KindPlural, view: Doc): string {
  if (!view.published)
    return `Nothing is live yet: publishing makes version ${view.versionCount + 1} the live ${ONE[kind]}.`;
  return view.draftDiffersFromLive
    ? "The draft differs from the live version: publish to make these edits live."
    : "The live version is the same as this draft.";
}

export function PublishPanel({
  kind,
  input,
  view,
  saved,
  checks,
  onDone,
}: {
  kind: KindPlural;
  input: Doc;
  view: Doc;
  /** Whether the draft on the server is the one on screen. */
  saved: boolean;
  /** What this kind needs before publishing, besides a saved draft. */
  checks: PublishCheck[];
  onDone: () => Promise<void>;
}) {
  const [notes, setNotes] = useState("");
  const [result, setResult] = useState<string | null>(null);
  const publish = usePublish(kind, async (data) => {
    setNotes("");
    setResult(`Published version ${data.version.number}; it is live.`);
    await onDone();
  });
  const dependencies = (
    publish.error as { data?: { appError?: { dependencies?: { id: string; kind: string; name: string }[] } } } | null
  )?.data?.appError?.dependencies;
  const all: PublishCheck[] = [{ label: "The draft is saved", done: saved }, ...checks];
  const ready = all.every((check) => check.done);

  return (
    <Panel title="Publish" label="Publish" className="form publish-panel">
      <p className="muted" data-testid="live-state">
        {liveWords(kind, view)}
      </p>
      <ul className="checklist" aria-label="Before publishing" data-testid="publish-checks">
        {all.map((check) => (
          <li key={check.label} className={check.done ? "done" : undefined}>
            {check.done ? (
              <CircleCheck size={18} aria-hidden className="icon check" />
            ) : (
              <Circle size={18} aria-hidden className="icon" />
            )}
            {check.href && !check.done ? <Link href={check.href}>{check.label}</Link> : <span>{check.label}</span>}
            <span className="visually-hidden">{check.done ? "(done)" : "(to do)"}</span>
          </li>
        ))}
      </ul>
      <FormField label="Notes">
        <textarea
          rows={2}
          value={notes}
          maxLength={MAX_VERSION_NOTES_CHARS}
          onChange={(e) => setNotes(e.target.value)}
          placeholder="What changed in this version"
        />
      </FormField>
      <div className="row">
        <Button
          variant="primary"
          disabled={!ready || publish.isPending}
          onClick={() => publish.mutate({ ...input, notes })}
          data-testid="publish"
        >
          {publish.isPending ? "Publishing…" : `Publish ${ONE[kind]}`}
        </Button>
        {result && !publish.error && <span role="status">{result}</span>}
      </div>
      <ErrorAlert error={publish.error} title="Not published" />
      {dependencies && (
        <ul>
          {dependencies.map((d) => (
            <li key={d.id}>
              <Link href={`/${d.kind}s/${d.id}`}>{d.name}</Link> ({d.kind}) is not published
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}
