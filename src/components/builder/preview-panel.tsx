"use client";
import { ErrorAlert, Panel } from "@/components/console";
// The editors' preview: a short conversation with the DRAFT being edited (not the live version),
// each message a test run (1 credit), with the trace of each answer. The transcript is kept per
// item in this tab (sessionStorage) while editing, so instructions can be changed and the same
// question asked again to compare the answers.
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ChatComposer } from "@/components/chat/chat-composer";
import { ChatTranscript } from "@/components/chat/chat-transcript";
import { TraceDetails, formatMs } from "@/components/runtime/execution-trace";
import { costWords } from "@/lib/cost-words";
import { useTRPC } from "@/lib/trpc";
import { ONE, type KindPlural } from "./use-draft-editor";

/** The transcript kept per draft: enough to compare a few answers, small enough for the tab's storage. */
const KEPT_MESSAGES = 20;
/** Turns sent as history with a message (the server accepts up to 40). */
const HISTORY_TURNS = 20;

interface PreviewMessage {
  id: string;
  role: "user" | "assistant";
  content: string;
  executionId?: string;
  error?: string | null;
  latencyMs?: number;
  /** What the run cost, e.g. "1 credit · 10 tokens in, 5 out" (kept with the transcript). */
  cost?: string;
  /** When the answer was given: the draft as saved then is what answered. */
  at?: string;
}

function storageKey(kind: KindPlural, id: string): string {
  return `atrium.preview.${kind}.${id}`;
}

function readKept(kind: KindPlural, id: string): PreviewMessage[] {
  try {
    return JSON.parse(window.sessionStorage.getItem(storageKey(kind, id)) ?? "[]") as PreviewMessage[];
  } catch {
    return [];
  }
}

function keep(kind: KindPlural, id: string, messages: PreviewMessage[]): void {
  try {
    window.sessionStorage.setItem(storageKey(kind, id), JSON.stringify(messages.slice(-KEPT_MESSAGES)));
  } catch {
    // A full or disabled storage only forgets the transcript on reload.
  }
}

export function PreviewPanel({ kind, id, draftSaved }: { kind: KindPlural; id: string; draftSaved: boolean }) {
  const trpc = useTRPC();
  const procs =
    kind === "agents" ? trpc.runtime.agentTests : kind === "flows" ? trpc.runtime.flowTests : trpc.runtime.appTests;
  const [messages, setMessages] = useState<PreviewMessage[]>([]);
  const [draft, setDraft] = useState("");
  const [asked, setAsked] = useState<string | null>(null);
  // The transcript kept in this tab for this item, read when the item is first shown.
  const [keptFor, setKeptFor] = useState<string | null>(null);
  if (keptFor !== storageKey(kind, id)) {
    setKeptFor(storageKey(kind, id));
    setMessages(readKept(kind, id));
  }
  const preview = useMutation(procs.preview.mutationOptions());

  const send = (event: FormEvent) => {
    event.preventDefault();
    const message = draft.trim();
    if (!message || preview.isPending) return;
    const history = messages
      .filter((m) => !m.error)
      .slice(-HISTORY_TURNS)
      .map((m) => ({ role: m.role, content: m.content }));
    setAsked(message);
    setDraft("");
    preview.mutate(
      { id, message, history },
      {
        onSuccess: (answer) => {
          const next: PreviewMessage[] = [
            ...messages,
            { id: `q-${answer.executionId}`, role: "user", content: message },
            {
              id: answer.executionId,
              role: "assistant",
              content: answer.error ? "" : answer.reply,
              executionId: answer.executionId,
              error: answer.error,
              latencyMs: answer.latencyMs,
              cost: costWords(answer),
              at: new Date().toISOString(),
            },
          ];
          setMessages(next);
          keep(kind, id, next);
        },
        onError: () => setDraft(message),
        onSettled: () => setAsked(null),
      },
    );
  };

  const clear = () => {
    setMessages([]);
    keep(kind, id, []);
  };

  return (
    <Panel label="Preview" className="preview-panel">
      <div className="preview-head">
        <h2>Preview</h2>
        <button type="button" onClick={clear} disabled={messages.length === 0 || preview.isPending}>
          Clear
        </button>
      </div>
      <p className="muted preview-note">
        Runs this {ONE[kind]}&apos;s draft as you edit it, not the live version. Each message is a test run: 1 credit,
        or its models&apos; price when the organization prices them; each answer says what it cost.
      </p>
      <ChatTranscript
        messages={messages}
        pending={asked ? { message: asked, reply: "" } : null}
        footer={(m) => (
          <div className="preview-footer">
            <ErrorAlert error={m.error} />
            <span className="muted">
              {m.at ? `Draft as saved at ${new Date(m.at).toLocaleTimeString()}` : ""}
              {m.latencyMs !== undefined ? ` · ${formatMs(m.latencyMs)}` : ""}
            </span>
            {m.cost && (
              <span className="muted" data-testid="preview-cost">
                {m.cost}
              </span>
            )}
            {m.executionId && <TraceDetails executionId={m.executionId} />}
          </div>
        )}
      >
        {messages.length === 0 && !asked && (
          <p className="muted" data-testid="preview-empty">
            {kind === "flows"
              ? "Send sample input (text, or a JSON object of the inputs) to run the flow."
              : "Ask something to try the draft."}
          </p>
        )}
      </ChatTranscript>
      <ErrorAlert error={preview.error} />
      <ChatComposer
        draft={draft}
        onDraft={setDraft}
        onSend={send}
        busy={preview.isPending}
        blocked={draftSaved ? undefined : "Waiting for the draft to save…"}
        placeholder={kind === "flows" ? "Sample input" : "Ask the draft…"}
      />
    </Panel>
  );
}
