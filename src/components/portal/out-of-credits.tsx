"use client";
// What the composer says when the end user has no credits left: why, when they come back, and a
// way to ask the organization for more (at most three open requests; admins are told by mail).
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { MAX_CREDIT_REQUEST_CHARS } from "@/schemas/credits";
import { outOfCreditsMessage, type Credits } from "./credits";
import { portalError } from "./portal-errors";
import { usePortalTRPC } from "./portal-trpc";

export function OutOfCredits({ portal, credits, serverMessage }: { portal: string; credits: Credits | undefined; serverMessage?: string }) {
  const trpc = usePortalTRPC();
  const ask = useMutation(trpc.credits.request.mutationOptions());
  const [writing, setWriting] = useState(false);
  const [note, setNote] = useState("");
  // The organization itself out of credits: asking the end user's admins for a bonus will not help.
  const ownPoolsEmpty = credits !== undefined && credits.left === 0;

  function send(event: FormEvent) {
    event.preventDefault();
    ask.mutate({ portal, ...(note.trim() ? { message: note.trim() } : {}) });
  }

  return (
    <div className="portal-out-of-credits" data-testid="out-of-credits">
      <p style={{ margin: 0 }}>
        <strong>{ownPoolsEmpty ? outOfCreditsMessage(credits, serverMessage ?? "") : (serverMessage ?? "There are no credits left for now.")}</strong>
      </p>
      {ownPoolsEmpty &&
        (ask.isSuccess ? (
          <p role="status" style={{ margin: "0.4rem 0 0" }}>
            Request sent. The organization has been told and will get back to you.
          </p>
        ) : writing ? (
          <form onSubmit={send} className="portal-ask-credits" aria-label="Ask for more credits">
            <input
              value={note}
              onChange={(e) => setNote(e.target.value)}
              maxLength={MAX_CREDIT_REQUEST_CHARS}
              placeholder="Why you need more (optional)"
              aria-label="Why you need more credits (optional)"
            />
            <button type="submit" className="primary" disabled={ask.isPending}>
              Send request
            </button>
          </form>
        ) : (
          <button type="button" onClick={() => setWriting(true)} style={{ marginTop: "0.4rem" }}>
            Ask for more credits
          </button>
        ))}
      {ask.error && (
        <p role="alert" className="error" style={{ margin: "0.4rem 0 0" }}>
          {portalError(ask.error).message}
        </p>
      )}
    </div>
  );
}
