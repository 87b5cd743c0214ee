"use client";
// The console chat with one published app: its greeting, its conversations, and a message box
// whose reply streams in (Server-Sent Events from /api/console/apps/{appId}/conversation). The
// open conversation is in the address (?c=), so a reload or a shared link reopens it.
import { Button, ErrorAlert, PageHeader, Panel, useViewerEmail } from "@/components/console";
import { skipToken, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ChatComposer } from "@/components/chat/chat-composer";
import { ChatTranscript, lastQuestion } from "@/components/chat/chat-transcript";
import { useChatAttachments } from "@/components/chat/use-attachments";
import { askInTurn, composerTurnProps, useChatTurn } from "@/components/chat/use-chat-turn";
import { agoWords } from "@/lib/change-words";
import { useTRPC } from "@/lib/trpc";
import { fullWhen } from "@/lib/when";
import { TraceDetails } from "./execution-trace";

/** The address of the chat with an app, with the conversation open in it. */
function chatHref(appId: string, conversationId: string | null): string {
  return conversationId ? `/chat/${appId}?c=${conversationId}` : `/chat/${appId}`;
}

export function ChatView({ appId, initialConversationId }: { appId: string; initialConversationId: string | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const app = useQuery(trpc.apps.get.queryOptions({ appId }));
  const conversations = useQuery(trpc.conversations.list.queryOptions({ appId }));
  const starters = useQuery(trpc.conversations.starters.queryOptions({ appId }));
  const viewer = useViewerEmail();
  const [conversationId, setShownConversation] = useState<string | null>(initialConversationId);
  // On a phone the list of conversations folds behind a button; opening one folds it again.
  const [listOpen, setListOpen] = useState(false);
  const messages = useQuery(trpc.conversations.messages.queryOptions(conversationId ? { conversationId } : skipToken));
  // An address may name a conversation with another app: it is not shown, or continued, under this one.
  const elsewhere =
    messages.data && messages.data.conversation.appId !== appId ? messages.data.conversation.appId : null;
  const [draft, setDraft] = useState("");
  const cancel = useMutation(trpc.runtime.cancelConversationRun.mutationOptions());
  const feedback = useMutation(trpc.runtime.conversationFeedback.mutationOptions());
  const turn = useChatTurn(`/api/console/apps/${appId}/conversation`, (executionId) =>
    cancel.mutateAsync({ appId, executionId }),
  );

  const attachments = useChatAttachments("/api/console/files");

  // The address follows the conversation shown, without a new render on the server.
  function setConversationId(id: string | null) {
    setShownConversation(id);
    window.history.replaceState(null, "", chatHref(appId, id));
  }

  function open(id: string | null) {
    turn.reset();
    setConversationId(id);
    setListOpen(false);
  }

  async function send(event: FormEvent) {
    event.preventDefault();
    await ask(draft.trim());
  }

  async function ask(message: string, body?: Record<string, unknown>) {
    if (!message || turn.streaming) return;
    const continued = elsewhere ? null : conversationId;
    const ended = await askInTurn({ turn, attachments, setDraft }, message, continued, body, async (done) => {
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
  const stored = conversationId && !elsewhere ? (messages.data?.messages ?? []) : [];
  const listed = conversations.data?.conversations ?? [];

  return (
    <>
      <PageHeader title={live?.name ?? "Chat"} back={{ href: "/chat", label: "All apps" }} />
      <ErrorAlert error={app.error} />
      <div className="chat">
        <aside className="panel chat-conversations" aria-label="Conversations" data-open={listOpen || undefined}>
          <div className="chat-conversations-head">
            <Button variant="primary" onClick={() => open(null)} disabled={conversationId === null && !turn.streaming}>
              New conversation
            </Button>
            {listed.length > 0 && (
              <Button
                className="chat-list-toggle"
                aria-expanded={listOpen}
                aria-controls="chat-conversation-list"
                onClick={() => setListOpen((shown) => !shown)}
              >
                History ({listed.length})
              </Button>
            )}
          </div>
          <ErrorAlert error={conversations.error} />
          {conversations.data && listed.length === 0 && (
            <p className="muted">No conversations yet: send a message to start one.</p>
          )}
          <ul id="chat-conversation-list">
            {listed.map((c) => (
              <li key={c.id}>
                <a
                  href={chatHref(appId, c.id)}
                  aria-current={c.id === conversationId ? "true" : undefined}
                  onClick={(event) => {
                    if (event.metaKey || event.ctrlKey || event.shiftKey) return;
                    event.preventDefault();
                    open(c.id);
                  }}
                >
                  {c.title || "Untitled"}
                </a>
                <div className="muted">
                  <time dateTime={c.updatedAt} title={fullWhen(c.updatedAt)}>
                    {agoWords(c.updatedAt)}
                  </time>
                  {" · "}
                  {c.startedBy === viewer ? "You" : c.startedBy}
                </div>
              </li>
            ))}
          </ul>
        </aside>
        <Panel label="Conversation" className="chat-main">
          <ChatTranscript
            greeting={live?.api?.greeting}
            messages={stored}
            pending={turn.pending}
            reconnecting={turn.reconnecting}
            files={{ url: (fileId) => `/api/console/files/${fileId}/content` }}
            actions={{
              onRegenerate: () => void ask(lastQuestion(stored), { regenerate: true }),
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
            {!conversationId && !turn.pending && !live?.api?.greeting && live?.name && (
              <div className="chat-intro">
                <h2>Chat with {live.name}</h2>
                <p className="muted">
                  {live.description || "Ask a question: the app's members answer at their published versions."}
                </p>
              </div>
            )}
            {messages.isLoading && <p className="muted">Loading…</p>}
            <ErrorAlert error={messages.error} />
            {elsewhere && (
              <p className="notice" role="status">
                That conversation is with another app: <a href={chatHref(elsewhere, conversationId)}>open it there</a>,
                or start a new one here.
              </p>
            )}
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
