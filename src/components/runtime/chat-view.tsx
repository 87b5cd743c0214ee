"use client";
// The console chat with one published app: its greeting, its conversations, and a message box
// whose reply streams in (Server-Sent Events from /api/console/apps/{appId}/conversation).
import { Button, ErrorAlert, PageHeader, Panel } from "@/components/console";
import { skipToken, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ChatComposer } from "@/components/chat/chat-composer";
import { ChatTranscript, lastQuestion } from "@/components/chat/chat-transcript";
import { useChatAttachments } from "@/components/chat/use-attachments";
import { askInTurn, composerTurnProps, useChatTurn } from "@/components/chat/use-chat-turn";
import { useTRPC } from "@/lib/trpc";
import { TraceDetails } from "./execution-trace";

export function ChatView({ appId }: { appId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const app = useQuery(trpc.apps.get.queryOptions({ appId }));
  const conversations = useQuery(trpc.conversations.list.queryOptions({ appId }));
  const starters = useQuery(trpc.conversations.starters.queryOptions({ appId }));
  const [conversationId, setConversationId] = useState<string | null>(null);
  const messages = useQuery(trpc.conversations.messages.queryOptions(conversationId ? { conversationId } : skipToken));
  const [draft, setDraft] = useState("");
  const cancel = useMutation(trpc.runtime.cancelConversationRun.mutationOptions());
  const feedback = useMutation(trpc.runtime.conversationFeedback.mutationOptions());
  const turn = useChatTurn(`/api/console/apps/${appId}/conversation`, (executionId) =>
    cancel.mutateAsync({ appId, executionId }),
  );

  const attachments = useChatAttachments("/api/console/files");

  function open(id: string | null) {
    turn.reset();
    setConversationId(id);
  }

  async function send(event: FormEvent) {
    event.preventDefault();
    await ask(draft.trim());
  }

  async function ask(message: string, body?: Record<string, unknown>) {
    if (!message || turn.streaming) return;
    const ended = await askInTurn({ turn, attachments, setDraft }, message, conversationId, body, async (done) => {
      // The stored messages (with the answer's execution) replace the streamed copy in one step.
      await queryClient.fetchQuery({
        ...trpc.conversations.messages.queryOptions({ conversationId: done.conversation_id }),
        staleTime: 0,
      });
      setConversationId(done.conversation_id);
      void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.queryKey({ appId }) });
    });
    if (ended === "stopped")
      void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.queryKey({ appId }) });
  }

  const live = app.data?.app as { name?: string; description?: string; api?: { greeting?: string } } | undefined;

  return (
    <>
      <PageHeader title={live?.name ?? "Chat"} back={{ href: "/chat", label: "All apps" }} />
      <ErrorAlert error={app.error} />
      <div className="chat">
        <aside className="panel chat-conversations" aria-label="Conversations">
          <Button variant="primary" onClick={() => open(null)} disabled={conversationId === null && !turn.streaming}>
            New conversation
          </Button>
          <ErrorAlert error={conversations.error} />
          {conversations.data?.conversations.length === 0 && (
            <p className="muted">No conversations yet: send a message to start one.</p>
          )}
          <ul>
            {conversations.data?.conversations.map((c) => (
              <li key={c.id}>
                <Button
                  variant="link"
                  aria-current={c.id === conversationId ? "true" : undefined}
                  onClick={() => open(c.id)}
                >
                  {c.title || "Untitled"}
                </Button>
                <div className="muted">
                  {c.startedBy} · {new Date(c.updatedAt).toLocaleString()}
                </div>
              </li>
            ))}
          </ul>
        </aside>
        <Panel label="Conversation" className="chat-main">
          <ChatTranscript
            greeting={live?.api?.greeting}
            messages={conversationId ? (messages.data?.messages ?? []) : []}
            pending={turn.pending}
            reconnecting={turn.reconnecting}
            files={{ url: (fileId) => `/api/console/files/${fileId}/content` }}
            actions={{
              onRegenerate: () => void ask(lastQuestion(messages.data?.messages ?? []), { regenerate: true }),
              onEditLast: (text) => void ask(text, { regenerate: true }),
              onFeedback: (message, rating, reason) =>
                feedback.mutateAsync({ appId, messageId: message.id, rating, ...(reason ? { reason } : {}) }),
            }}
            footer={(m) =>
              m.role === "assistant" && m.executionId ? (
                <TraceDetails executionId={m.executionId} label="Trace of this answer" />
              ) : null
            }
          >
            {messages.isLoading && <p className="muted">Loading…</p>}
            <ErrorAlert error={messages.error} />
          </ChatTranscript>
          {!conversationId && !turn.streaming && (starters.data?.conversationStarters.length ?? 0) > 0 && (
            <div className="chat-starters" role="group" aria-label="Conversation starters">
              {starters.data?.conversationStarters.map((starter) => (
                <button key={starter} type="button" onClick={() => void ask(starter)}>
                  {starter}
                </button>
              ))}
            </div>
          )}
          <ErrorAlert error={turn.error} />
          <ChatComposer
            draft={draft}
            onDraft={setDraft}
            onSend={send}
            {...composerTurnProps(turn)}
            attachments={attachments}
          />
        </Panel>
      </div>
    </>
  );
}
