"use client";
// Sign-in by email one-time code (the email first, then the 6-digit code from the email) and,
// when the portal allows it, "Continue with <provider>" (single sign-on, src/server/adapters/oidc.ts).
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { Trans, useTranslation } from "react-i18next";
import { usePortalLanguage } from "./i18n/provider";
import { PortalFrame } from "./portal-frame";
import { PortalErrorLine } from "./portal-error-line";
import { usePortalTRPC } from "./portal-trpc";
import { keptExportLink, markSignedIn, markSignedOut } from "./session-memory";

export function PortalSignIn({
  portal,
  sessionEnded,
  ssoError,
}: {
  portal: string;
  sessionEnded: boolean;
  ssoError?: string;
}) {
  const { t } = useTranslation();
  const signIn = useCodeSignIn(portal);
  const { sentTo } = signIn;

  return (
    <PortalFrame portal={portal} signedIn={false}>
      {(info) => (
        <div className="panel portal-sign-in">
          <h1>{t("signIn.title", { name: info.name })}</h1>
          {sessionEnded && !sentTo && (
            <p className="notice" role="status">
              {t("signIn.sessionEnded")}
            </p>
          )}
          {ssoError && (
            <p role="alert" className="error" data-testid="sso-error">
              {/* The identity provider's or the server's reason comes as it was written. */}
              {t("signIn.ssoFailed")} <span lang="en">{ssoError}</span>
            </p>
          )}
          {info.ssoName && !sentTo && (
            <a
              className="button primary"
              href={`/auth/oidc/start?portal=${encodeURIComponent(portal)}`}
              data-testid="sso-sign-in"
            >
              {t("signIn.continueWith", { name: info.ssoName })}
            </a>
          )}
          {info.signIn === "sso" ? null : !sentTo ? (
            <EmailForm signIn={signIn} />
          ) : (
            <CodeForm signIn={signIn} sentTo={sentTo} />
          )}
        </div>
      )}
    </PortalFrame>
  );
}

/** The email, then the code sent to it: what was sent, the two requests, and the ways back. */
function useCodeSignIn(portal: string) {
  const trpc = usePortalTRPC();
  const language = usePortalLanguage();
  const router = useRouter();
  const [email, setEmail] = useState("");
  const [code, setCode] = useState("");
  useEffect(() => markSignedOut(portal), [portal]);
  const [sentTo, setSentTo] = useState<{ email: string; minutes: number; again: boolean } | null>(null);
  const requestCode = useMutation(
    trpc.auth.requestCode.mutationOptions({
      onSuccess: (data, input) => {
        setCode("");
        setSentTo((before) => ({
          email: input.email,
          minutes: Math.round(data.expiresInSeconds / 60),
          again: before !== null,
        }));
      },
    }),
  );
  const verifyCode = useMutation(
    trpc.auth.verifyCode.mutationOptions({
      onSuccess: () => {
        markSignedIn(portal);
        // Back to a mailed export link that brought them here, or home.
        router.replace(`/p/${encodeURIComponent(portal)}${keptExportLink(portal) ? "/conversations" : ""}`);
      },
    }),
  );

  function sendCode(event: FormEvent) {
    event.preventDefault();
    verifyCode.reset();
    requestCode.mutate({ portal, email: email.trim(), language });
  }

  function verify(event: FormEvent) {
    event.preventDefault();
    if (sentTo) verifyCode.mutate({ portal, email: sentTo.email, code });
  }

  function changeEmail() {
    setSentTo(null);
    setCode("");
    requestCode.reset();
    verifyCode.reset();
  }

  const failure = verifyCode.error ?? requestCode.error;
  const resend = (to: string) => requestCode.mutate({ portal, email: to, language });
  return {
    email,
    setEmail,
    code,
    setCode,
    sentTo,
    requestCode,
    verifyCode,
    sendCode,
    verify,
    changeEmail,
    resend,
    failure,
  };
}

type CodeSignIn = ReturnType<typeof useCodeSignIn>;

/** The first step: the email to send a code to. */
function EmailForm({ signIn }: { signIn: CodeSignIn }) {
  const { t } = useTranslation();
  const { email, setEmail, sendCode, failure, requestCode } = signIn;
  return (
    <form className="form" onSubmit={sendCode}>
      <p className="muted" style={{ margin: 0 }}>
        {t("signIn.intro")}
      </p>
      <label>
        {t("signIn.email")}
        <input
          type="email"
          name="email"
          autoComplete="email"
          inputMode="email"
          required
          maxLength={320}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </label>
      {failure && <PortalErrorLine error={failure} />}
      <button className="primary" type="submit" disabled={requestCode.isPending}>
        {requestCode.isPending ? t("signIn.sending") : t("signIn.sendCode")}
      </button>
    </form>
  );
}

/** The second step: the 6-digit code from the email, a new code, or another email. */
function CodeForm({ signIn, sentTo }: { signIn: CodeSignIn; sentTo: NonNullable<CodeSignIn["sentTo"]> }) {
  const { t } = useTranslation();
  const { code, setCode, verify, failure, verifyCode, requestCode, resend, changeEmail } = signIn;
  return (
    <form className="form" onSubmit={verify}>
      <p role="status" style={{ margin: 0 }}>
        <Trans
          t={t}
          i18nKey={sentTo.again ? "signIn.newCodeSent" : "signIn.codeSent"}
          values={{ email: sentTo.email, count: sentTo.minutes }}
          count={sentTo.minutes}
          components={{ email: <strong /> }}
        />
      </p>
      <label>
        {t("signIn.code")}
        <input
          className="code"
          name="code"
          autoComplete="one-time-code"
          inputMode="numeric"
          pattern="[0-9]{6}"
          title={t("signIn.codeFormat")}
          minLength={6}
          maxLength={6}
          required
          value={code}
          onChange={(e) => setCode(e.target.value.replace(/\D/g, "").slice(0, 6))}
        />
      </label>
      {failure && <PortalErrorLine error={failure} />}
      <button className="primary" type="submit" disabled={verifyCode.isPending || code.length !== 6}>
        {verifyCode.isPending ? t("signIn.signingIn") : t("signIn.signIn")}
      </button>
      <div className="row">
        <button type="button" onClick={() => resend(sentTo.email)} disabled={requestCode.isPending}>
          {t("signIn.sendNewCode")}
        </button>
        <button type="button" onClick={changeEmail}>
          {t("signIn.useAnotherEmail")}
        </button>
      </div>
    </form>
  );
}
