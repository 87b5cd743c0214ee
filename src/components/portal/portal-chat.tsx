"use client";
// Chat with one app in the portal: the reply streams in, the conversation's id goes in the URL
// (?c=) so reload and back work, and a refusal keeps what the end user typed.
import { skipToken, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { ChatComposer } from "@/components/chat/chat-composer";
import { ChatTranscript, lastQuestion } from "@/components/chat/chat-transcript";
import { useChatAttachments } from "@/components/chat/use-attachments";
import { askInTurn, composerTurnProps, useChatTurn } from "@/components/chat/use-chat-turn";
import { ConversationHistory } from "./conversation-history";
import { embedSessionHeaders } from "./embed-session";
import { OutOfCredits } from "./out-of-credits";
import { portalError, portalErrorText } from "./portal-errors";
import { PortalErrorLine } from "./portal-error-line";
import { PortalFrame } from "./portal-frame";
import { usePortalBase } from "./portal-place";
import { usePortalTRPC, useSignInRedirect } from "./portal-trpc";
import { markSignedIn } from "./session-memory";
import { takeStarter } from "./starter-handoff";

export function PortalChat({
  portal,
  appId,
  conversationId: fromUrl,
}: {
  portal: string;
  appId: string;
  conversationId: string | null;
}) {
  const { t } = useTranslation();
  const chat = usePortalChat(portal, appId, fromUrl);
  const { me, apps, app, base, conversationId, turn, failure, ask, startNew, credits } = chat;
  const [historyOpen, setHistoryOpen] = useState(false);

  return (
    <PortalFrame portal={portal}>
      {() => {
        if (!app || me.error || apps.error)
          return <ChatUnavailable error={me.error ?? apps.error} loading={!apps.data} base={base} />;
        const outOfCredits = (credits && credits.left === 0) || failure?.code === "insufficient_credits";
        return (
          <section className="portal-chat" aria-label={t("chat.conversation")}>
            <ChatHead
              name={app.name}
              onNew={startNew}
              canStartNew={!!conversationId || turn.pending !== null}
              historyOpen={historyOpen}
              onToggleHistory={() => setHistoryOpen((open) => !open)}
            />
            {historyOpen && (
              <div id="chat-history" className="panel portal-chat-history">
                <ConversationHistory portal={portal} currentId={conversationId} onDeletedCurrent={startNew} />
              </div>
            )}
            <PortalTranscript chat={chat} greeting={app.greeting} outOfCredits={outOfCredits} />
            {!conversationId && !turn.pending && (
              <Starters
                starters={app.conversationStarters}
                onAsk={(starter) => void ask(starter)}
                disabled={outOfCredits}
              />
            )}
            {failure && failure.status !== 401 && failure.code !== "insufficient_credits" && (
              <PortalErrorLine error={turn.error} testId="chat-error" />
            )}
            <PortalComposer chat={chat} appName={app.name} outOfCredits={outOfCredits} />
          </section>
        );
      }}
    </PortalFrame>
  );
}

/** The conversation of one app: its id from the URL, the turn, attachments, and what a turn's end refreshes. */
function usePortalChat(portal: string, appId: string, fromUrl: string | null) {
  const trpc = usePortalTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const base = usePortalBase(portal);
  const me = useQuery(trpc.me.get.queryOptions({ portal }));
  const apps = useQuery({ ...trpc.apps.list.queryOptions({ portal }), enabled: me.isSuccess });
  const { conversationId, setConversationId, conversation } = useConversationFromUrl(portal, fromUrl);
  const [draft, setDraft] = useState("");
  const feedback = useMutation(trpc.conversations.feedback.mutationOptions());
  const turn = usePortalTurn(portal, appId);
  const attachments = useChatAttachments(`/api/portal/${encodeURIComponent(portal)}/files`, embedSessionHeaders);
  const app = apps.data?.apps.find((candidate) => candidate.id === appId);
  const failure = useTurnFailure(portal, turn.error);

  useEffect(() => {
    if (me.isSuccess) markSignedIn(portal);
  }, [me.isSuccess, portal]);

  async function ask(message: string, body?: Record<string, unknown>) {
    if (turn.streaming) return;
    const ended = await askInTurn({ turn, attachments, setDraft }, message, conversationId, body, async (done) => {
      await queryClient.fetchQuery({
        ...trpc.conversations.get.queryOptions({ portal, conversationId: done.conversation_id }),
        staleTime: 0,
      });
      setConversationId(done.conversation_id);
      // Only a new conversation changes the URL: each replace renders the page on the server again.
      if (done.conversation_id !== conversationId)
        router.replace(`${base}/apps/${appId}?c=${done.conversation_id}`, { scroll: false });
      void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.me.get.queryKey({ portal }) });
    });
    if (ended === "stopped") {
      void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.me.get.queryKey({ portal }) });
    }
  }

  useStarterOnArrival(app, conversationId, ask);

  function send(event: FormEvent) {
    event.preventDefault();
    const message = draft.trim();
    if (message) void ask(message);
  }

  function startNew() {
    turn.reset();
    setConversationId(null);
    router.replace(`${base}/apps/${appId}`, { scroll: false });
  }

  const stored =
    conversationId && conversation.data?.conversation.appId === appId ? conversation.data.conversation.messages : [];
  const credits = me.data?.credits;

  return {
    portal,
    me,
    apps,
    app,
    base,
    conversationId,
    conversation,
    draft,
    setDraft,
    turn,
    attachments,
    failure,
    feedback,
    ask,
    send,
    startNew,
    stored,
    credits,
  };
}

/** A turn with the app through the portal's stream, stopped through its runs.cancel. */
function usePortalTurn(portal: string, appId: string) {
  const trpc = usePortalTRPC();
  const cancel = useMutation(trpc.runs.cancel.mutationOptions());
  return useChatTurn(
    `/api/portal/${encodeURIComponent(portal)}/apps/${encodeURIComponent(appId)}/conversation`,
    (executionId) => cancel.mutateAsync({ portal, appId, executionId }),
    embedSessionHeaders,
  );
}

/** The conversation the URL names (?c=), opened again when a link names another. */
function useConversationFromUrl(portal: string, fromUrl: string | null) {
  const trpc = usePortalTRPC();
  const [conversationId, setConversationId] = useState(fromUrl);
  // A link to another conversation (the history, back and forward) opens it.
  const [openedFromUrl, setOpenedFromUrl] = useState(fromUrl);
  if (fromUrl !== openedFromUrl) {
    setOpenedFromUrl(fromUrl);
    setConversationId(fromUrl);
  }
  const conversation = useQuery(
    trpc.conversations.get.queryOptions(conversationId ? { portal, conversationId } : skipToken),
  );
  return { conversationId, setConversationId, conversation };
}

/** A turn's failure, read: a 401 goes to sign-in, a 402 refreshes the pools its message names. */
function useTurnFailure(portal: string, error: unknown) {
  const trpc = usePortalTRPC();
  const queryClient = useQueryClient();
  const toSignIn = useSignInRedirect(portal);
  const failure = error === null ? null : portalError(error);
  useEffect(() => {
    if (failure?.status === 401) toSignIn();
    // The plain message for a 402 needs the pools as they are now.
    if (failure?.code === "insufficient_credits")
      void queryClient.invalidateQueries({ queryKey: trpc.me.get.queryKey({ portal }) });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- reacts to a new failure only, not to a new redirect function
  }, [error]);
  return failure;
}

/** A starter chosen on the home page, sent once the app is known to be usable. */
function useStarterOnArrival(
  app: { id: string } | undefined,
  conversationId: string | null,
  ask: (message: string) => Promise<void>,
) {
  const starterSent = useRef(false);
  useEffect(() => {
    if (!app || starterSent.current || conversationId) return;
    starterSent.current = true;
    const starter = takeStarter(app.id);
    // Sending is the effect: once, when the app arrives.
    if (starter) void ask(starter);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, when the app arrives
  }, [app]);
}

type PortalChatState = ReturnType<typeof usePortalChat>;

/** The conversation so far, each answer with its cost, and what a message offers (again, edit, rate). */
function PortalTranscript({
  chat,
  greeting,
  outOfCredits,
}: {
  chat: PortalChatState;
  greeting: string | null;
  outOfCredits: boolean;
}) {
  const { t } = useTranslation();
  const { portal, conversation, turn, ask, stored, feedback } = chat;
  return (
    <ChatTranscript
      greeting={greeting}
      messages={stored}
      pending={turn.pending}
      reconnecting={turn.reconnecting}
      files={{
        url: (fileId) => `/api/portal/${encodeURIComponent(portal)}/files/${fileId}/content`,
        headers: embedSessionHeaders,
      }}
      footer={(message) =>
        message.credits !== null && (
          <p className="muted portal-turn-cost" data-testid="turn-cost">
            {t("chat.turnCost", { count: message.credits })}
          </p>
        )
      }
      actions={{
        // Out of credits, nothing that runs again is offered; rating still is.
        ...(outOfCredits
          ? {}
          : {
              onRegenerate: () => void ask(lastQuestion(stored), { regenerate: true }),
              onEditLast: (text: string) => void ask(text, { regenerate: true }),
            }),
        onFeedback: (message, rating, reason) =>
          feedback.mutateAsync({ portal, messageId: message.id, rating, ...(reason ? { reason } : {}) }),
      }}
    >
      {conversation.isLoading && <p className="muted">{t("frame.loading")}</p>}
      {conversation.error && <PortalErrorLine error={conversation.error} />}
    </ChatTranscript>
  );
}

/** The message box, blocked with a way to more credits once none are left. */
function PortalComposer({
  chat,
  appName,
  outOfCredits,
}: {
  chat: PortalChatState;
  appName: string;
  outOfCredits: boolean;
}) {
  const { t } = useTranslation();
  const { portal, draft, setDraft, send, turn, failure, credits, attachments } = chat;
  return (
    <ChatComposer
      draft={draft}
      onDraft={setDraft}
      onSend={send}
      {...composerTurnProps(turn)}
      blocked={
        outOfCredits ? (
          <OutOfCredits
            portal={portal}
            credits={credits}
            serverMessage={failure?.code === "insufficient_credits" ? portalErrorText(t, turn.error) : undefined}
          />
        ) : undefined
      }
      aside={
        credits && credits.left > 0 ? (
          <span data-testid="chat-credits-left">{t("credits.left", { count: credits.left })}</span>
        ) : undefined
      }
      placeholder={t("chat.placeholder", { name: appName })}
      attachments={attachments}
    />
  );
}

/** What the chat shows until its app is known usable: a sign-in on its way, a failure, loading, or an app not offered. */
function ChatUnavailable({ error, loading, base }: { error: unknown; loading: boolean; base: string }) {
  const { t } = useTranslation();
  if (error)
    return portalError(error).status === 401 ? (
      <p className="muted">{t("home.signingYouIn")}</p>
    ) : (
      <PortalErrorLine error={error} />
    );
  if (loading) return <p className="muted">{t("frame.loading")}</p>;
  return (
    <>
      <h1>{t("chat.unavailableTitle")}</h1>
      <p>{t("chat.unavailableText")}</p>
      <p>
        <Link href={base}>{t("chat.seeYourApps")}</Link>
      </p>
    </>
  );
}

/** The app's name, with a new conversation and the history drawer's switch. */
function ChatHead({
  name,
  onNew,
  canStartNew,
  historyOpen,
  onToggleHistory,
}: {
  name: string;
  onNew: () => void;
  canStartNew: boolean;
  historyOpen: boolean;
  onToggleHistory: () => void;
}) {
  const { t } = useTranslation();
  return (
    <div className="portal-chat-head">
      <h1>{name}</h1>
      <div className="row">
        <button type="button" onClick={onNew} disabled={!canStartNew}>
          {t("chat.newConversation")}
        </button>
        <button type="button" aria-expanded={historyOpen} aria-controls="chat-history" onClick={onToggleHistory}>
          {t("chat.history")}
        </button>
      </div>
    </div>
  );
}

/** The app's conversation starters, offered before the first question. */
function Starters({
  starters,
  onAsk,
  disabled,
}: {
  starters: string[];
  onAsk: (starter: string) => void;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  if (starters.length === 0) return null;
  return (
    <div className="portal-starters" role="group" aria-label={t("chat.starters")}>
      {starters.map((starter) => (
        <button key={starter} type="button" onClick={() => onAsk(starter)} disabled={disabled}>
          {starter}
        </button>
      ))}
    </div>
  );
}
