// Mail (end users' sign-in codes, invitations to members): sent over SMTP with nodemailer when
// SMTP_URL and MAIL_FROM are set, otherwise kept in the organization's outbox, which admins read
// in the console and operators with `admin mail list`.
import type { Transporter } from "nodemailer";
import { env } from "@/env";
import type { OutboxMessage } from "@/schemas/portal";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { beforeCursor, NEWEST_FIRST, toPage } from "./support/pagination";

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

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
  await db.outboxMessage.create({ data: { organizationId, to: mail.to, subject: mail.subject, text: mail.text } });
}

/** The organization's outbox, newest first (console admins and operators). */
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
    const rows = await db.outboxMessage.findMany({
      where: { organizationId: actor.organizationId, ...beforeCursor(input.cursor) },
      orderBy: NEWEST_FIRST,
      take: input.limit + 1,
    });
    const page = toPage(rows, input.limit);
    return {
      messages: page.items.map((row) => ({
        id: row.id,
        to: row.to,
        subject: row.subject,
        text: row.text,
        createdAt: row.createdAt.toISOString(),
      })),
      nextCursor: page.nextCursor,
    };
  },
);
