// With SMTP_URL and MAIL_FROM set, sign-in codes go out over SMTP (nodemailer) instead of the
// outbox: a local SMTP server started here receives the code, and the code signs in.
import { SMTPServer } from "smtp-server";
import { afterAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { clientAddress, portalCall, portalScenario } from "./helpers";

interface Received {
  from: string;
  to: string[];
  raw: string;
}

const received: Received[] = [];
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  onData(stream, session, callback) {
    let raw = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => (raw += chunk));
    stream.on("end", () => {
      received.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
        to: session.envelope.rcptTo.map((r) => r.address),
        raw,
      });
      callback();
    });
  },
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = (server.server.address() as { port: number }).port;
// Set before anything reads the environment (src/env.ts caches it on first use).
process.env.SMTP_URL = `smtp://127.0.0.1:${port}`;
process.env.MAIL_FROM = "Atrium <no-reply@atrium.test>";

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function waitForMail(to: string): Promise<Received> {
  for (let i = 0; i < 100; i++) {
    const mail = received.find((m) => m.to.includes(to));
    if (mail) return mail;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no mail to ${to}`);
}

describe("sign-in codes over SMTP", () => {
  it("the local SMTP server receives the code, which signs in; nothing goes to the outbox", async () => {
    const scenario = await portalScenario();
    const from = clientAddress();
    const requested = await portalCall(
      "mutation",
      "auth.requestCode",
      { portal: scenario.portal.slug, email: scenario.endUser.email },
      { headers: from },
    );
    expect(requested.status).toBe(200);
    const mail = await waitForMail(scenario.endUser.email);
    expect(mail.from).toBe("no-reply@atrium.test");
    expect(mail.raw).toMatch(/Subject: Your sign-in code for Help Center: \d{6}/);
    const code = mail.raw.match(/is (\d{6})\./)![1]!;
    expect(await getDb().outboxMessage.count()).toBe(0);

    const verified = await portalCall(
      "mutation",
      "auth.verifyCode",
      { portal: scenario.portal.slug, email: scenario.endUser.email, code },
      { headers: from },
    );
    expect(verified.status).toBe(200);
    expect(verified.headers.get("set-cookie")).toMatch(/^atrium_portal_session=/);
  });

  it("sends nothing for an email that is not an end user", async () => {
    const scenario = await portalScenario();
    const stranger = `stranger-${scenario.endUser.email}`;
    const requested = await portalCall(
      "mutation",
      "auth.requestCode",
      { portal: scenario.portal.slug, email: stranger },
      { headers: clientAddress() },
    );
    expect(requested.body.result.data).toEqual({ sent: true, expiresInSeconds: 600 });
    // A real one sent after it arrives; the stranger's never does.
    await portalCall(
      "mutation",
      "auth.requestCode",
      { portal: scenario.portal.slug, email: scenario.endUser.email },
      { headers: clientAddress() },
    );
    await waitForMail(scenario.endUser.email);
    expect(received.some((m) => m.to.includes(stranger))).toBe(false);
  });
});
