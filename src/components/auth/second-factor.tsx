"use client";
// The second factor's screens, shared by the sign-in page, the invitation page and the account
// page: a code step, the authenticator setup (QR code, the secret to type, the first code) and the
// recovery codes, shown once.
import { useMutation } from "@tanstack/react-query";
import { Button, CopyButton, ErrorAlert, fieldProblem, FormField, PageHeader, useZodForm } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { MfaCodeInput } from "@/schemas/identity/mfa";
import { MAX_MFA_CODE_CHARS } from "@/schemas/limits";
import "./second-factor.css";

export interface Challenge {
  challenge: string;
  purpose: "verify" | "enroll";
}

export interface Enrollment {
  secret: string;
  otpauthUri: string;
  qrCode: string;
}

/** The second factor as a page of its own, after the password or an invitation's link set one. */
export function SecondFactorPage({
  challenge,
  description,
  onSignedIn,
}: {
  challenge: Challenge;
  /** Under the title: whom the code is for. */
  description?: string;
  onSignedIn: () => void;
}) {
  return (
    <main className="auth-page">
      <div className="panel auth-card" aria-labelledby="second-factor-title">
        <PageHeader
          title={challenge.purpose === "verify" ? "Two-step verification" : "Set up two-step verification"}
          headingId="second-factor-title"
          description={description}
        />
        <SecondFactorStep challenge={challenge} onSignedIn={onSignedIn} />
      </div>
    </main>
  );
}

/** The step after the password: a code, or enrolling when the organization requires it. */
export function SecondFactorStep({ challenge, onSignedIn }: { challenge: Challenge; onSignedIn: () => void }) {
  return challenge.purpose === "verify" ? (
    <CodeStep challenge={challenge.challenge} onSignedIn={onSignedIn} />
  ) : (
    <EnrollStep challenge={challenge.challenge} onSignedIn={onSignedIn} />
  );
}

function CodeStep({ challenge, onSignedIn }: { challenge: string; onSignedIn: () => void }) {
  const trpc = useTRPC();
  const form = useZodForm(MfaCodeInput, { defaultValues: { code: "" } });
  const verify = useMutation(trpc.auth.verifyMfa.mutationOptions({ onSuccess: onSignedIn }));
  const submit = form.handleSubmit(({ code }) => verify.mutate({ challenge, code }));
  return (
    <form className="form" onSubmit={(event) => void submit(event)} aria-label="Second factor">
      <FormField
        label="Code from your authenticator app"
        hint="Six digits. Lost your phone? Enter one of your recovery codes instead."
        error={fieldProblem(form, "code")}
      >
        <input
          required
          autoFocus
          autoComplete="one-time-code"
          spellCheck={false}
          minLength={6}
          maxLength={MAX_MFA_CODE_CHARS}
          {...form.register("code")}
        />
      </FormField>
      <ErrorAlert error={verify.error} />
      <Button variant="primary" type="submit" disabled={verify.isPending}>
        {verify.isPending ? "Checking…" : "Verify and sign in"}
      </Button>
    </form>
  );
}

function EnrollStep({ challenge, onSignedIn }: { challenge: string; onSignedIn: () => void }) {
  const trpc = useTRPC();
  const start = useMutation(trpc.auth.startMfaEnrollment.mutationOptions());
  const finish = useMutation(trpc.auth.finishMfaEnrollment.mutationOptions());
  if (finish.data) return <RecoveryCodes codes={finish.data.recoveryCodes} onDone={onSignedIn} doneLabel="Continue" />;
  if (!start.data)
    return (
      <div className="form">
        <p>
          Your organization requires a second factor. Set up an authenticator app (Google Authenticator, Microsoft
          Authenticator, 1Password…) to finish signing in.
        </p>
        <ErrorAlert error={start.error} />
        <Button variant="primary" type="button" onClick={() => start.mutate({ challenge })} disabled={start.isPending}>
          Set up an authenticator app
        </Button>
      </div>
    );
  return (
    <TotpSetup
      enrollment={start.data}
      pending={finish.isPending}
      error={finish.error}
      onConfirm={(code) => finish.mutate({ challenge, code })}
    />
  );
}

/** The QR code, the secret to type instead, and the first code that turns the factor on. */
export function TotpSetup({
  enrollment,
  pending,
  error,
  onConfirm,
}: {
  enrollment: Enrollment;
  pending: boolean;
  error: unknown;
  onConfirm: (code: string) => void;
}) {
  const form = useZodForm(MfaCodeInput, { defaultValues: { code: "" } });
  const submit = form.handleSubmit(({ code }) => onConfirm(code));
  return (
    <form className="form" onSubmit={(event) => void submit(event)} aria-label="Set up an authenticator app">
      <p>1. Scan this QR code with your authenticator app.</p>
      {/* A PNG data URL the server made from the otpauth URI. */}
      <img className="totp-qr" src={enrollment.qrCode} alt="QR code to add Atrium to your authenticator app" />
      <p className="muted">
        Cannot scan? Enter this key:{" "}
        <code className="totp-secret" data-testid="totp-secret">
          {enrollment.secret}
        </code>{" "}
        <CopyButton text={enrollment.secret} label="Copy key" />
      </p>
      <FormField label="2. Enter the six-digit code it shows" error={fieldProblem(form, "code")}>
        <input
          required
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={MAX_MFA_CODE_CHARS}
          {...form.register("code")}
        />
      </FormField>
      <ErrorAlert error={error} />
      <Button variant="primary" type="submit" disabled={pending}>
        {pending ? "Checking…" : "Turn on"}
      </Button>
    </form>
  );
}

/** Ten recovery codes, shown this once. */
export function RecoveryCodes({
  codes,
  onDone,
  doneLabel,
}: {
  codes: string[];
  onDone: () => void;
  doneLabel: string;
}) {
  return (
    <div className="form" role="region" aria-label="Recovery codes">
      <p role="status">
        <strong>Your second factor is on.</strong> Save these recovery codes somewhere safe: each signs you in once if
        you lose your phone. They are not shown again.
      </p>
      <ol className="recovery-codes" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ol>
      <div>
        <CopyButton text={codes.join("\n")} label="Copy codes" />
      </div>
      <Button variant="primary" onClick={onDone}>
        {doneLabel}
      </Button>
    </div>
  );
}
