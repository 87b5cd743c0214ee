"use client";
// Sign-in by email one-time code (the email first, then the 6-digit code from the email) and,
// when the portal allows it, "Continue with <provider>" (single sign-on, src/server/adapters/oidc.ts).
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { PortalFrame } from "./portal-frame";
import { signInErrorMessage } from "./portal-errors";
import { usePortalTRPC } from "./portal-trpc";
import { markSignedIn, markSignedOut } from "./session-memory";

export function PortalSignIn({ portal, sessionEnded, ssoError }: { portal: string; sessionEnded: boolean; ssoError?: string }) {
  const trpc = usePortalTRPC();
  const router = useRouter();
  const [email, setEmail] = useState("");
  const [code, setCode] = useState("");
  useEffect(() => markSignedOut(portal), [portal]);
  const [sentTo, setSentTo] = useState<{ email: string; minutes: number; again: boolean } | null>(null);
  const requestCode = useMutation(
    trpc.auth.requestCode.mutationOptions({
      onSuccess: (data, input) => {
        setCode("");
        setSentTo((before) => ({ email: input.email, minutes: Math.round(data.expiresInSeconds / 60), again: before !== null }));
      },
    }),
  );
  const verifyCode = useMutation(
    trpc.auth.verifyCode.mutationOptions({
      onSuccess: () => {
        markSignedIn(portal);
        router.replace(`/p/${encodeURIComponent(portal)}`);
      },
    }),
  );

  function sendCode(event: FormEvent) {
    event.preventDefault();
    verifyCode.reset();
    requestCode.mutate({ portal, email: email.trim() });
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

  return (
    <PortalFrame portal={portal} signedIn={false}>
      {(info) => (
        <div className="panel portal-sign-in">
          <h1>Sign in to {info.name}</h1>
          {sessionEnded && !sentTo && (
            <p className="notice" role="status">
              Your session has ended. Sign in again to continue.
            </p>
          )}
          {ssoError && (
            <p role="alert" className="error" data-testid="sso-error">
              {ssoError}
            </p>
          )}
          {info.ssoName && !sentTo && (
            <a className="button primary" href={`/auth/oidc/start?portal=${encodeURIComponent(portal)}`} data-testid="sso-sign-in">
              Continue with {info.ssoName}
            </a>
          )}
          {info.signIn === "sso" ? null : !sentTo ? (
            <form className="form" onSubmit={sendCode}>
              <p className="muted" style={{ margin: 0 }}>
                Enter your email address and we will send you a sign-in code.
              </p>
              <label>
                Email
                <input type="email" name="email" autoComplete="email" inputMode="email" required maxLength={320} value={email} onChange={(e) => setEmail(e.target.value)} />
              </label>
              {failure && (
                <p role="alert" className="error">
                  {signInErrorMessage(failure)}
                </p>
              )}
              <button className="primary" type="submit" disabled={requestCode.isPending}>
                {requestCode.isPending ? "Sending…" : "Send me a code"}
              </button>
            </form>
          ) : (
            <form className="form" onSubmit={verify}>
              <p role="status" style={{ margin: 0 }}>
                {sentTo.again ? "A new code is on its way" : "A 6-digit code is on its way"} to <strong>{sentTo.email}</strong> if it has access here. It expires in{" "}
                {sentTo.minutes} minutes.
              </p>
              <label>
                6-digit code
                <input
                  className="code"
                  name="code"
                  autoComplete="one-time-code"
                  inputMode="numeric"
                  pattern="[0-9]{6}"
                  minLength={6}
                  maxLength={6}
                  required
                  value={code}
                  onChange={(e) => setCode(e.target.value.replace(/\D/g, "").slice(0, 6))}
                />
              </label>
              {failure && (
                <p role="alert" className="error">
                  {signInErrorMessage(failure)}
                </p>
              )}
              <button className="primary" type="submit" disabled={verifyCode.isPending || code.length !== 6}>
                {verifyCode.isPending ? "Signing in…" : "Sign in"}
              </button>
              <div className="row">
                <button type="button" onClick={() => requestCode.mutate({ portal, email: sentTo.email })} disabled={requestCode.isPending}>
                  Send a new code
                </button>
                <button type="button" onClick={changeEmail}>
                  Use another email
                </button>
              </div>
            </form>
          )}
        </div>
      )}
    </PortalFrame>
  );
}
