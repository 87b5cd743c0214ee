"use client";
// Security, for owners: whether members need a second factor and who has one (with the reset for a
// lost phone), how members sign in, how long data is kept, and the latest sign-ins.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import {
  ConfirmButton,
  DataTable,
  ErrorAlert,
  notifyDone,
  PageHeader,
  Panel,
  useMay,
  When,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import type { z } from "zod";
import type { SecurityOverview } from "@/schemas/identity/security";

const METHOD_LABEL: Record<string, string> = {
  password: "Password",
  "password + totp": "Password + authenticator",
  "password + recovery_code": "Password + recovery code",
  sso: "Single sign-on",
};

type Overview = z.infer<typeof SecurityOverview>;

const SSO_PROTOCOL = { oidc: "OpenID Connect", saml: "SAML 2.0" } as const;

export default function SecurityPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const isOwner = useMay("owners");
  const overview = useQuery({ ...trpc.security.overview.queryOptions(), enabled: isOwner });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.security.overview.queryKey() });
  const requireMfa = useMutation(
    trpc.organization.update.mutationOptions({
      onSuccess: (organization) => {
        notifyDone(
          organization.requireMfa
            ? "Members without a second factor set one up at their next password sign-in."
            : "A second factor is no longer required.",
        );
        void refresh();
        void queryClient.invalidateQueries({ queryKey: trpc.organization.get.queryKey() });
      },
    }),
  );
  const reset = useMutation(
    trpc.mfa.reset.mutationOptions({
      onSuccess: ({ member }) => {
        notifyDone(`${member.email}'s second factor was removed.`);
        void refresh();
      },
    }),
  );

  if (!isOwner)
    return (
      <>
        <PageHeader title="Security" />
        <p className="muted">Only owners see the organization&apos;s security overview.</p>
      </>
    );
  const data = overview.data;
  const enrolled = data?.members.filter((member) => member.mfaEnrolledAt).length ?? 0;

  return (
    <>
      <PageHeader
        title="Security"
        description="Two-step verification, how members sign in, what is kept, and who signed in lately."
      />
      <ErrorAlert error={overview.error ?? requireMfa.error ?? reset.error} />
      {data && (
        <>
          <SignInPolicyPanel
            data={data}
            enrolled={enrolled}
            onRequireMfa={(on) => requireMfa.mutate({ requireMfa: on })}
          />
          <MembersPanel data={data} onReset={(memberId) => reset.mutate({ memberId })} />
          <RecentSignInsPanel data={data} />
        </>
      )}
    </>
  );
}

/** How members sign in: the second factor (required or not, and who has one), single sign-on, and what is kept. */
function SignInPolicyPanel({
  data,
  enrolled,
  onRequireMfa,
}: {
  data: Overview;
  enrolled: number;
  onRequireMfa: (on: boolean) => void;
}) {
  return (
    <Panel title="Sign-in" headingId="sign-in-policy">
      <dl className="facts">
        <dt>Two-step verification</dt>
        <dd data-testid="require-mfa-state">
          {data.requireMfa ? "Required for password sign-in" : "Optional"} · {enrolled} of {data.members.length} members
          have it
        </dd>
        <dt>Password sign-in</dt>
        <dd>{data.passwordSignIn ? "On" : "Off (single sign-on only)"}</dd>
        <dt>Single sign-on</dt>
        <dd>
          {data.sso ? (
            <span data-testid="sso-connection">
              {data.sso.displayName || data.sso.issuer} ({SSO_PROTOCOL[data.sso.protocol]})
              {data.sso.domains.length > 0 && ` · ${data.sso.domains.join(", ")}`}
              {data.sso.metadataError !== null && (
                <span className="error" data-testid="sso-metadata-error">
                  {" "}
                  · Metadata not read again: {data.sso.metadataError} (the last good one is kept)
                </span>
              )}
            </span>
          ) : (
            "Not set up"
          )}{" "}
          · <Link href="/directory">Directory</Link>
        </dd>
        <dt>Conversations kept</dt>
        <dd>
          {data.conversationRetentionDays === null
            ? "Until deleted"
            : `${data.conversationRetentionDays} days after the last message`}{" "}
          · <Link href="/settings">Settings</Link>
        </dd>
        <dt>Audit log kept</dt>
        <dd>{data.auditRetentionDays} days</dd>
      </dl>
      <div>
        <ConfirmButton
          label={data.requireMfa ? "Stop requiring two-step verification" : "Require two-step verification"}
          confirmLabel={data.requireMfa ? "Stop requiring" : "Require"}
          destructive={false}
          needs="owners"
          title={data.requireMfa ? "Stop requiring a second factor?" : "Require a second factor?"}
          description={
            data.requireMfa
              ? "Members keep the factors they have and may turn them off."
              : "Members without one set up an authenticator app at their next password sign-in. Single sign-on is not asked."
          }
          onConfirm={() => onRequireMfa(!data.requireMfa)}
        />
      </div>
    </Panel>
  );
}

/** Each member's second factor and last sign-in, with the reset for a lost phone. */
function MembersPanel({ data, onReset }: { data: Overview; onReset: (memberId: string) => void }) {
  return (
    <Panel title="Members" headingId="members-mfa">
      <DataTable
        label="Members' two-step verification"
        rows={data.members}
        rowTestId="mfa-member-row"
        empty="No members."
        cards
        initialSort={{ key: "email", direction: "ascending" }}
        columns={[
          { key: "email", header: "Email", sortValue: (member) => member.email, cell: (member) => member.email },
          { key: "role", header: "Role", sortValue: (member) => member.role, cell: (member) => member.role },
          {
            key: "mfa",
            header: "Two-step",
            sortValue: (member) => member.mfaEnrolledAt ?? "",
            cell: (member) =>
              member.mfaEnrolledAt
                ? `On · ${member.recoveryCodesLeft} recovery codes left`
                : data.requireMfa
                  ? "Off · set up at next sign-in"
                  : "Off",
          },
          {
            key: "last",
            header: "Last sign-in",
            nowrap: true,
            sortValue: (member) => member.lastSignInAt ?? "",
            cell: (member) => <When at={member.lastSignInAt} never="Never" />,
          },
          {
            key: "actions",
            header: "",
            label: "Actions",
            cell: (member) =>
              member.mfaEnrolledAt && (
                <ConfirmButton
                  label="Reset two-step"
                  needs="owners"
                  title={`Reset ${member.email}'s second factor?`}
                  description="Their authenticator and recovery codes stop working. They sign in with their password alone, or set up a new factor at their next sign-in if it is required."
                  onConfirm={() => onReset(member.id)}
                />
              ),
          },
        ]}
      />
    </Panel>
  );
}

/** The latest sign-ins, newest first. */
function RecentSignInsPanel({ data }: { data: Overview }) {
  return (
    <Panel title="Recent sign-ins" headingId="recent-sign-ins">
      <DataTable
        label="Latest sign-ins, newest first"
        rows={data.recentSignIns}
        empty="No sign-ins yet."
        cards
        columns={[
          { key: "when", header: "When", nowrap: true, cell: (event) => <When at={event.occurredAt} /> },
          { key: "who", header: "Member", cell: (event) => event.email },
          { key: "how", header: "How", cell: (event) => METHOD_LABEL[event.method] ?? event.method },
          {
            key: "outcome",
            header: "Outcome",
            cell: (event) => (event.outcome === "success" ? "Signed in" : "Refused"),
          },
          { key: "address", header: "Address", cell: (event) => event.ipAddress ?? "—" },
        ]}
      />
      <p className="muted">
        Every sign-in and second-factor event is in the <Link href="/audit-log">audit log</Link>.
      </p>
    </Panel>
  );
}
