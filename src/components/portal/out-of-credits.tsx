"use client";
// What the composer says when the end user has no credits left: why, when they come back, and a
// way to ask the organization for more (at most three open requests; admins are told by mail).
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { MAX_CREDIT_REQUEST_CHARS } from "@/schemas/provisioning/credits";
import { outOfCreditsMessage, type Credits } from "./credits";
import { usePortalLanguage } from "./i18n/provider";
import { PortalErrorLine } from "./portal-error-line";
import { usePortalTRPC } from "./portal-trpc";

export function OutOfCredits({
  portal,
  credits,
  serverMessage,
}: {
  portal: string;
  credits: Credits | undefined;
  serverMessage?: string;
}) {
  const trpc = usePortalTRPC();
  const { t } = useTranslation();
  const language = usePortalLanguage();
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
        <strong>
          {ownPoolsEmpty
            ? outOfCreditsMessage(t, language, credits, serverMessage ?? "")
            : (serverMessage ?? t("credits.noneForNow"))}
        </strong>
      </p>
      {ownPoolsEmpty &&
        (ask.isSuccess ? (
          <p role="status" style={{ margin: "0.4rem 0 0" }}>
            {t("credits.requestSent")}
          </p>
        ) : writing ? (
          <form onSubmit={send} className="portal-ask-credits" aria-label={t("credits.ask")}>
            <input
              value={note}
              onChange={(e) => setNote(e.target.value)}
              maxLength={MAX_CREDIT_REQUEST_CHARS}
              placeholder={t("credits.askReason")}
              aria-label={t("credits.askReasonLabel")}
            />
            <button type="submit" className="primary" disabled={ask.isPending}>
              {t("credits.sendRequest")}
            </button>
          </form>
        ) : (
          <button type="button" onClick={() => setWriting(true)} style={{ marginTop: "0.4rem" }}>
            {t("credits.ask")}
          </button>
        ))}
      {ask.error && <PortalErrorLine error={ask.error} style={{ margin: "0.4rem 0 0" }} />}
    </div>
  );
}
