"use client";
// Where an invitation's link lands: the invitee sees who invited them to what, chooses a
// password and is signed in to the console; a password reset link lands here too. A link used,
// revoked or expired says so plainly.
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { SecondFactorPage, type Challenge } from "@/components/auth/second-factor";
import { ErrorAlert, errorEnvelope, FormField, PageHeader } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { ROLE_SUMMARIES } from "@/schemas/permissions";

const UNUSABLE_TITLE: Record<string, string> = {
  invitation_unavailable: "This link can no longer be used",
  not_found: "This link is not valid",
};

export default function InvitationPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const token = decodeURIComponent(useParams<{ token: string }>().token);
  const preview = useQuery({ ...trpc.invitations.preview.queryOptions({ token }), retry: false });
  // The link sets the password; a second factor, when the member has one or must enroll one, still follows.
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const accept = useMutation(
    trpc.invitations.accept.mutationOptions({
      onSuccess: (result) => (result.mfa ? setChallenge(result.mfa) : router.replace("/")),
    }),
  );
  const [password, setPassword] = useState("");
  const [repeated, setRepeated] = useState("");
  const mismatch = repeated !== "" && repeated !== password;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!mismatch) accept.mutate({ token, password });
  }

  if (challenge) return <SecondFactorPage challenge={challenge} onSignedIn={() => router.replace("/")} />;

  if (preview.error) {
    const { code, message } = errorEnvelope(preview.error);
    return (
      <main className="auth-page">
        <section className="panel auth-card" aria-labelledby="invitation-title" data-testid="invitation-unusable">
          <PageHeader
            title={UNUSABLE_TITLE[code ?? ""] ?? "This link could not be opened"}
            headingId="invitation-title"
          />
          <p>{message}</p>
          <p>
            <Link href="/sign-in">Go to sign in</Link>
          </p>
        </section>
      </main>
    );
  }

  const invitation = preview.data;
  const reset = invitation?.purpose === "reset";
  const title = !invitation
    ? "Your invitation"
    : reset
      ? `New password for ${invitation.organizationName}`
      : `Join ${invitation.organizationName}`;
  const description = !invitation
    ? "Opening your link…"
    : reset
      ? "Your password for this organization was reset. Choose a new one to sign in."
      : `You are invited as ${invitation.role}. ${ROLE_SUMMARIES[invitation.role]}`;
  return (
    <main className="auth-page">
      <form
        className="panel auth-card form"
        onSubmit={submit}
        aria-labelledby="invitation-title"
        aria-busy={!invitation}
      >
        <PageHeader title={title} headingId="invitation-title" description={description} />
        <FormField label="Email">
          <input type="email" autoComplete="username" readOnly value={invitation?.email ?? ""} />
        </FormField>
        <FormField label="Choose a password" hint="At least 10 characters.">
          <input
            type="password"
            autoComplete="new-password"
            required
            minLength={10}
            maxLength={200}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </FormField>
        <FormField label="Repeat the password" error={mismatch ? "The two passwords differ." : undefined}>
          <input
            type="password"
            autoComplete="new-password"
            required
            maxLength={200}
            value={repeated}
            onChange={(e) => setRepeated(e.target.value)}
          />
        </FormField>
        <ErrorAlert error={accept.error} />
        <button className="primary" type="submit" disabled={!invitation || accept.isPending || mismatch}>
          {accept.isPending ? "Signing in…" : reset ? "Set password and sign in" : "Set password and join"}
        </button>
        {invitation && (
          <p className="muted">This link works once, until {new Date(invitation.expiresAt).toLocaleString()}.</p>
        )}
      </form>
    </main>
  );
}
