"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { useSearchParameter } from "@/lib/browser";
import { SecondFactorPage, type Challenge } from "@/components/auth/second-factor";
import { ErrorAlert, errorEnvelope, FormField, PageHeader } from "@/components/console";
import { useTRPC } from "@/lib/trpc";

export default function SignInPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  // A member with a second factor (or who must enroll one) is asked for it after the password.
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const signIn = useMutation(
    trpc.auth.signIn.mutationOptions({
      onSuccess: (result) => ("mfa" in result ? setChallenge(result.mfa) : router.replace("/")),
    }),
  );
  // A single sign-on that failed comes back here with the reason (src/server/adapters/oidc.ts).
  const ssoError = useSearchParameter("sso_error")?.slice(0, 500);

  function continueWithSso() {
    window.location.assign(`/auth/oidc/start?email=${encodeURIComponent(email.trim())}`);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    signIn.mutate({ email, password });
  }

  if (challenge)
    return <SecondFactorPage challenge={challenge} description={email} onSignedIn={() => router.replace("/")} />;

  return (
    <main className="auth-page">
      <form className="panel auth-card form" onSubmit={submit} aria-labelledby="sign-in-title">
        <PageHeader title="Sign in" headingId="sign-in-title" description="to your organization's Atrium console" />
        <FormField label="Email">
          <input
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </FormField>
        <FormField label="Password">
          <input
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </FormField>
        {/* A wrong password is the person's to fix: the sentence alone, no code or request id. */}
        <ErrorAlert
          error={signIn.error}
          hideMeta={["unauthorized", "rate_limited"].includes(errorEnvelope(signIn.error).code ?? "")}
        />
        {ssoError && (
          <p role="alert" className="error" data-testid="sso-error">
            {ssoError}
          </p>
        )}
        <button className="primary" type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? "Signing in…" : "Sign in"}
        </button>
        <button type="button" onClick={continueWithSso} disabled={!email.includes("@")} data-testid="sso-sign-in">
          Continue with single sign-on
        </button>
      </form>
    </main>
  );
}
