"use client";
// One turn of a chat: the typed message and the reply as it streams, until the stored messages
// replace them. Shared by the console chat and the portal. The stream resumes by itself after a
// dropped connection (stream-reply.ts); Stop cancels the run on the server (`cancelRun`), which
// ends it `canceled` and keeps what it had written so far on screen.
import { useEffect, useRef, useState } from "react";
import { streamReply, StreamError, type StreamDone } from "./stream-reply";
import type { ChatAttachments } from "./use-attachments";

export interface PendingTurn {
  message: string;
  reply: string;
  /** Stopped by the person: the reply is as far as it got. */
  stopped?: boolean;
}

export function useChatTurn(
  url: string,
  cancelRun: (executionId: string) => Promise<unknown>,
  headers?: () => Record<string, string>,
) {
  const [pending, setPending] = useState<PendingTurn | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [reconnecting, setReconnecting] = useState(false);
  const [stopping, setStopping] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const executionId = useRef<string | null>(null);
  // Leaving the page stops listening; the run itself finishes and is in the conversation later.
  useEffect(() => () => abort.current?.abort(), []);

  function reset() {
    abort.current?.abort();
    setPending(null);
    setError(null);
    setStopping(false);
  }

  /** Stops the reply being written: the run ends `canceled` (billed, since it ran). */
  async function stop(): Promise<void> {
    const id = executionId.current;
    if (!id || stopping) return;
    setStopping(true);
    try {
      await cancelRun(id);
    } catch (cause) {
      setError(cause);
      setStopping(false);
    }
  }

  /**
   * Streams the reply to `message`; `settle` loads what was stored before the streamed copy goes,
   * so the log changes in one step. Resolves how the turn ended: "failed" (see `error`; the message
   * was not answered, so the caller puts it back in the box), "stopped", or "left" (the page moved on).
   */
  async function send(
    message: string,
    conversationId: string | null,
    settle: (done: StreamDone) => Promise<void>,
    options: { body?: Record<string, unknown>; onStarted?: (conversationId: string) => void } = {},
  ): Promise<"answered" | "stopped" | "failed" | "left"> {
    setError(null);
    setStopping(false);
    setPending({ message, reply: "" });
    executionId.current = null;
    const controller = new AbortController();
    abort.current = controller;
    try {
      const done = await streamReply(
        url,
        { message, ...(conversationId ? { conversation_id: conversationId } : {}), ...options.body },
        {
          onDelta: (text) => setPending((current) => (current ? { ...current, reply: current.reply + text } : current)),
          onRun: (run) => {
            executionId.current = run.executionId;
            options.onStarted?.(run.conversationId);
          },
          onReconnecting: setReconnecting,
        },
        controller.signal,
        headers,
      );
      await settle(done);
      if (controller.signal.aborted) return "left";
      setPending(null);
      return "answered";
    } catch (cause) {
      if (controller.signal.aborted) return "left";
      if (cause instanceof StreamError && cause.code === "canceled") {
        setPending((current) => (current ? { ...current, stopped: true } : current));
        return "stopped";
      }
      setError(cause);
      setPending(null);
      return "failed";
    } finally {
      setStopping(false);
    }
  }

  const streaming = pending !== null && !pending.stopped;
  return { pending, streaming, error, reconnecting, stopping, send, stop, reset };
}

/**
 * Asks `message` in the conversation, or asks it again with `body` (a regenerated answer): a new
 * question clears the box and carries the files picked for it (a regenerated one sends none: the
 * server keeps those of the message it replaces), and comes back to the box when it fails.
 * Resolves how the turn ended (useChatTurn's `send`).
 */
export async function askInTurn(
  chat: {
    turn: ReturnType<typeof useChatTurn>;
    attachments: ChatAttachments;
    setDraft: (next: string | ((current: string) => string)) => void;
  },
  message: string,
  conversationId: string | null,
  body: Record<string, unknown> | undefined,
  settle: (done: StreamDone) => Promise<void>,
) {
  if (!body) chat.setDraft("");
  const fileIds = body ? [] : chat.attachments.fileIds;
  if (fileIds.length) chat.attachments.clear();
  const ended = await chat.turn.send(message, conversationId, settle, {
    body: fileIds.length ? { ...body, fileIds } : body,
  });
  if (ended === "failed" && !body) chat.setDraft((current) => current || message);
  return ended;
}

/** The composer's props that follow the turn: busy and Stop while the reply streams. */
export function composerTurnProps(turn: ReturnType<typeof useChatTurn>) {
  return { busy: turn.streaming, streaming: turn.streaming, onStop: () => void turn.stop(), stopping: turn.stopping };
}
