"use client";
// One turn of a chat: the typed message and the reply as it streams, until the stored messages
// replace them. Shared by the console chat and the portal.
import { useEffect, useRef, useState } from "react";
import { streamReply, type StreamDone } from "./stream-reply";

export interface PendingTurn {
  message: string;
  reply: string;
}

export function useChatTurn(url: string) {
  const [pending, setPending] = useState<PendingTurn | null>(null);
  const [error, setError] = useState<unknown>(null);
  const abort = useRef<AbortController | null>(null);
  // Leaving the page cancels a reply still streaming (the server stops the run).
  useEffect(() => () => abort.current?.abort(), []);

  function reset() {
    abort.current?.abort();
    setPending(null);
    setError(null);
  }

  /**
   * Streams the reply to `message`; `settle` loads what was stored before the streamed copy goes,
   * so the log changes in one step. Resolves false when the turn failed (see `error`).
   */
  async function send(message: string, conversationId: string | null, settle: (done: StreamDone) => Promise<void>): Promise<boolean> {
    setError(null);
    setPending({ message, reply: "" });
    const controller = new AbortController();
    abort.current = controller;
    try {
      const done = await streamReply(
        url,
        { message, ...(conversationId ? { conversation_id: conversationId } : {}) },
        (text) => setPending((current) => (current ? { ...current, reply: current.reply + text } : current)),
        controller.signal,
      );
      await settle(done);
      if (controller.signal.aborted) return false;
      setPending(null);
      return true;
    } catch (cause) {
      if (controller.signal.aborted) return false;
      setError(cause);
      setPending(null);
      return false;
    }
  }

  return { pending, error, send, reset };
}
