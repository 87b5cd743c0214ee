// Mail (end users' sign-in codes, invitations to members): sent over SMTP with nodemailer when
// SMTP_URL and MAIL_FROM are set, otherwise kept in the organization's outbox, which admins read
// in the console and operators with `admin mail list`. A message whose link grants what only
// owners may grant (an owner invitation, an owner's or admin's password reset) is read in the
// console by owners and its recipient only: an admin sees that it was sent, not its text.
import type { Transporter } from "nodemailer";
import { env } from "@/env";
import { CAPABILITIES, may, type Capability } from "@/schemas/permissions";
import type { OutboxMessage } from "@/schemas/portal/portal";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { newestFirst } from "../support/pagination";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /**
   * What a member must be allowed to do to read the text in the outbox, besides its recipient:
   * what its link does. Default `settings`, the outbox's own requirement.
   */
  readableWith?: Capability;
}

const WITHHELD_TEXT =
  "Withheld: this mail carries a link that grants what only an owner may grant, so only owners and its recipient read it here.";

let transport: { url: string; transporter: Promise<Transporter> } | undefined;

function smtpTransporter(url: string): Promise<Transporter> {
  if (transport?.url !== url) {
    // nodemailer loads only when SMTP is configured.
    transport = { url, transporter: import("nodemailer").then((nodemailer) => nodemailer.createTransport(url)) };
  }
  return transport.transporter;
}

/** Sends a message over SMTP, or keeps it in the organization's outbox when SMTP is not configured. */
export async function deliverMail(db: Db, organizationId: string, mail: Mail): Promise<void> {
  const { SMTP_URL, MAIL_FROM } = env();
  if (SMTP_URL && MAIL_FROM) {
    const transporter = await smtpTransporter(SMTP_URL);
    await transporter.sendMail({ from: MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text });
    return;
  }
  await db.outboxMessage.create({
    data: {
      organizationId,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      readableWith: mail.readableWith ?? "settings",
    },
  });
}

/** Whether `actor` may read a kept message's text: the operator always, else its recipient or a member allowed what it does. */
function mayRead(actor: Actor, message: { to: string; readableWith: string }): boolean {
  if (actor.kind === "operator") return true;
  if (!actor.member) return false;
  if (actor.member.email === message.to) return true;
  // An unknown capability (a row from a newer release) is read by nobody but the operator and the recipient.
  return (
    Object.hasOwn(CAPABILITIES, message.readableWith) && may(actor.member.role, message.readableWith as Capability)
  );
}

/** The organization's outbox, newest first (console admins and operators), each text as `actor` may read it. */
export const listMail = guarded(
  { scope: "end_users:read", may: "settings" },
  async function listMail(
    db: Db,
    actor: Actor,
    input: { limit: number; cursor?: string },
  ): Promise<{
    messages: OutboxMessage[];
    nextCursor: string | null;
  }> {
    const page = await newestFirst(input, (before, window) =>
      db.outboxMessage.findMany({ where: { organizationId: actor.organizationId, ...before }, ...window }),
    );
    return {
      messages: page.items.map((row) => {
        const readable = mayRead(actor, row);
        return {
          id: row.id,
          to: row.to,
          subject: row.subject,
          text: readable ? row.text : WITHHELD_TEXT,
          withheld: !readable,
          createdAt: row.createdAt.toISOString(),
        };
      }),
      nextCursor: page.nextCursor,
    };
  },
);
