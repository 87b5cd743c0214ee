// The portal's pure pieces: readable colours from any accent, the plain out-of-credits and
// throttling messages, in English and in French.
import { describe, expect, it } from "vitest";
import { StreamError } from "@/components/chat/stream-reply";
import { nextRenewal, outOfCreditsMessage, type Credits } from "@/components/portal/credits";
import { createPortalI18n } from "@/components/portal/i18n";
import { uploadFailureText } from "@/components/chat/chat-composer";
import {
  isUnauthorized,
  PORTAL_ERROR_CODES,
  portalError,
  portalErrorText,
  waitInWords,
} from "@/components/portal/portal-errors";
import { formatFileSize } from "@/lib/file-size";
import { PORTAL_LANGUAGES } from "@/schemas/portal/portal";
import { ERROR_CODES, ERROR_STATUS } from "@/server/errors";
import { contrastRatio, portalTheme } from "@/lib/portal-theme";

describe("portalTheme", () => {
  it("keeps button text and links readable (4.5:1) whatever accent an admin picks", () => {
    // Mid-tones (#777777, #e8590c) are where neither white nor a dark grey would do.
    for (const accent of [
      "#ffdd00",
      "#ffffff",
      "#000000",
      "#3b5bdb",
      "#12b886",
      "#ff8787",
      "#7048e8",
      "#777777",
      "#e8590c",
      "#228be6",
    ]) {
      const theme = portalTheme(accent);
      expect(contrastRatio(theme.accent, theme.accentText), accent).toBeGreaterThanOrEqual(4.5);
      expect(contrastRatio(theme.link, "#f6f7f9"), accent).toBeGreaterThanOrEqual(4.5);
      // The dark theme's page, panel and the end user's own messages (src/app/theme.css).
      for (const background of ["#111418", "#1a1e24", "#232c4a"])
        expect(contrastRatio(theme.linkDark, background), accent).toBeGreaterThanOrEqual(4.5);
    }
    expect(portalTheme("#ffdd00").accentText).toBe("#000000");
    expect(portalTheme("#1b1f6b").accentText).toBe("#ffffff");
    // A dark brand colour is unreadable as a link on the dark theme: a light tint of it is used there.
    expect(portalTheme("#ffdd00").linkDark).toBe("#ffdd00");
    const navy = portalTheme("#1b1f6b").linkDark;
    expect(navy).not.toBe("#1b1f6b");
    expect(contrastRatio(navy, "#232c4a")).toBeLessThan(6);
  });

  it("falls back to the default accent for a missing or malformed colour", () => {
    expect(portalTheme(null).accent).toBe("#3b5bdb");
    expect(portalTheme("red; background: url(x)").accent).toBe("#3b5bdb");
    expect(portalTheme("#ABCDEF").accent).toBe("#abcdef");
  });
});

const english = createPortalI18n("en").t;
const french = createPortalI18n("fr").t;
const german = createPortalI18n("de").t;

describe("outOfCreditsMessage", () => {
  const plan = (creditsLeft: number, creditsResetAt: string) => ({
    subscriptionId: crypto.randomUUID(),
    planName: "Starter",
    creditAllowance: 3,
    bonusCredits: 0,
    creditsUsed: 3 - creditsLeft,
    creditsLeft,
    creditsResetAt,
  });

  it("says when the pools renew: the soonest of them", () => {
    const credits: Credits = {
      left: 0,
      plans: [plan(0, "2027-01-15T10:00:00.000Z"), plan(0, "2026-12-23T10:00:00.000Z")],
    };
    expect(nextRenewal(credits.plans)?.toISOString()).toBe("2026-12-23T10:00:00.000Z");
    expect(outOfCreditsMessage(english, "en", credits, "server")).toBe(
      "You've used all your credits. They renew on 23 December 2026.",
    );
    expect(outOfCreditsMessage(french, "fr", credits, "server")).toBe(
      "Vous avez utilisé tous vos crédits. Ils seront renouvelés le 23 décembre 2026.",
    );
  });

  it("keeps the server's message when the end user still has credits (the organization ran out)", () => {
    expect(
      outOfCreditsMessage(
        english,
        "en",
        { left: 2, plans: [plan(2, "2026-12-23T10:00:00.000Z")] },
        "The organization is out of credits.",
      ),
    ).toBe("The organization is out of credits.");
    expect(outOfCreditsMessage(english, "en", undefined, "From the server")).toBe("From the server");
  });

  it("tells an end user without a plan that they have no credits", () => {
    expect(outOfCreditsMessage(english, "en", { left: 0, plans: [] }, "server")).toMatch(/don't have any credits/);
  });
});

describe("portal errors", () => {
  const trpcError = (data: object, message = "Refused") => Object.assign(new Error(message), { data });

  it("reads status, code and the wait from the tRPC door and from the chat stream", () => {
    expect(
      portalError(trpcError({ httpStatus: 429, appError: { code: "rate_limited", retryAfterSeconds: 42 } })),
    ).toEqual({
      status: 429,
      code: "rate_limited",
      message: "Refused",
      retryAfterSeconds: 42,
    });
    expect(portalError(new StreamError("No credits", 402, "insufficient_credits"))).toEqual({
      status: 402,
      code: "insufficient_credits",
      message: "No credits",
    });
    expect(isUnauthorized(trpcError({ httpStatus: 401, appError: { code: "unauthorized" } }))).toBe(true);
    expect(isUnauthorized(new StreamError("Sign in", 401, "unauthorized"))).toBe(true);
    expect(isUnauthorized(trpcError({ httpStatus: 404, appError: { code: "not_found" } }))).toBe(false);
  });

  it("says how long to wait when sign-in is throttled, and words every refusal itself, in the portal's language", () => {
    const throttled = (seconds: number) =>
      trpcError({ httpStatus: 429, appError: { code: "rate_limited", retryAfterSeconds: seconds } });
    expect(portalErrorText(english, throttled(42))).toBe("Too many attempts. Try again in 42 seconds.");
    expect(portalErrorText(english, throttled(300))).toBe("Too many attempts. Try again in 5 minutes.");
    expect(portalErrorText(french, throttled(1))).toBe("Trop de tentatives. Réessayez dans 1 seconde.");
    const wrongCode = trpcError({ httpStatus: 400, appError: { code: "invalid_code" } }, "That code is wrong");
    expect(portalErrorText(english, wrongCode)).toBe("That code is wrong or has expired. Request a new one.");
    expect(portalErrorText(french, wrongCode)).toBe("Ce code est erroné ou a expiré. Demandez-en un nouveau.");
    expect(portalErrorText(french, new StreamError("lost", 200, "connection_lost"))).toMatch(
      /^La connexion a été perdue/,
    );
    // The server's English never reaches the end user: a refusal is worded by its code.
    expect(
      portalErrorText(
        french,
        trpcError({ httpStatus: 400, appError: { code: "invalid_request" } }, "Invalid request: email"),
      ),
    ).toBe("Cela n'a pas pu être envoyé tel quel. Vérifiez et réessayez.");
    expect(
      portalErrorText(french, trpcError({ httpStatus: 413, appError: { code: "invalid_request" } }, "Too large")),
    ).toBe("C'est trop volumineux pour être envoyé.");
    expect(portalErrorText(french, new StreamError("The run was lost", 200, "run_lost"))).toMatch(
      /^La réponse a été interrompue de notre côté/,
    );
    expect(
      portalErrorText(german, trpcError({ httpStatus: 418, appError: { code: "a_future_code" } }, "In English")),
    ).toBe("Etwas ist schiefgelaufen. Versuchen Sie es erneut.");
    // The export download's refusals of a mailed link, in the page's language rather than the server's English.
    const used = new StreamError("This link was used already.", 410, "export_link_unavailable");
    expect(portalErrorText(french, used)).toBe("Ce lien a déjà servi ou a expiré. Demandez-en un nouveau ci-dessous.");
    expect(portalErrorText(german, new StreamError("Someone else's", 403, "export_link_other_user"))).toMatch(
      /^Dieser Link wurde an jemand anderen gesendet/,
    );
    // No code to word and nothing meant for a person: the browser's "Failed to fetch", a server fault.
    expect(portalErrorText(french, new TypeError("Failed to fetch"))).toBe("Une erreur s'est produite. Réessayez.");
    expect(
      portalErrorText(german, trpcError({ httpStatus: 500, appError: { code: "internal_error" } }, "Internal error")),
    ).toBe("Etwas ist schiefgelaufen. Versuchen Sie es erneut.");
    expect(portalErrorText(german, "thrown as a string")).toBe("Etwas ist schiefgelaufen. Versuchen Sie es erneut.");
    expect(waitInWords(english, 1)).toBe("1 second");
    expect(waitInWords(english, 61)).toBe("2 minutes");
  });
});

/**
 * The server's codes no portal door sends (API keys, members, the console's own references and
 * provisioning): each is named here so that a new code in src/server/errors.ts fails the walk
 * below until it is worded for the portal or added here.
 */
const NEVER_SENT_TO_THE_PORTAL = [
  "invalid_api_key",
  "api_key_revoked",
  "member_removed",
  "member_key_required",
  "api_disabled",
  "insufficient_scope",
  "forbidden_role",
  "groups_disabled",
  "grants_unsupported",
  "portal_scope_unsupported",
  "method_not_allowed",
  "live_paid_subscription",
  "directory_managed",
  "invitation_unavailable",
  "precondition_failed",
  "export_too_large",
  "group_not_found",
  "plan_group",
  "tier_not_found",
  "grant_target_not_found",
  "end_user_not_found",
  "agent_not_found",
  "flow_not_found",
  "knowledgebase_not_found",
  "mcp_connection_not_found",
  "invalid_model",
];
/** Codes only a conversation stream's final event carries, and the browser's own. */
const STREAM_CODES = ["run_lost", "server_shutdown", "connection_lost"];

describe("every refusal the portal can receive", () => {
  const worded = PORTAL_ERROR_CODES as readonly string[];
  const translators = { en: english, fr: french, de: german };

  it("is a code the portal words, or one no portal door sends", () => {
    for (const code of [...ERROR_CODES, ...STREAM_CODES])
      expect(worded.includes(code) !== NEVER_SENT_TO_THE_PORTAL.includes(code), code).toBe(true);
    for (const code of NEVER_SENT_TO_THE_PORTAL) expect(ERROR_CODES as string[], code).toContain(code);
  });

  it.each(PORTAL_LANGUAGES)("is worded in %s by its code, never with the server's message", (language) => {
    const t = translators[language];
    for (const code of worded) {
      const status = (ERROR_STATUS as Record<string, number>)[code] ?? 200;
      const text = portalErrorText(t, new StreamError("Server English", status, code));
      expect(text, code).toBe(t(`errors.${code}` as "errors.generic"));
      expect(text, code).not.toMatch(/Server English|^errors\./);
      if (language !== "en") expect(text, code).not.toBe(english(`errors.${code}` as "errors.generic"));
    }
  });

  it("words a refused upload by its status and code in the portal's language", () => {
    const chat = createPortalI18n("fr").getFixedT("fr", "chat");
    const text = (failure?: { status: number; code?: string }) =>
      uploadFailureText(chat as never, (bytes) => formatFileSize(bytes, "fr"), { name: "plan.exe", failure });
    expect(text({ status: 422, code: "unsupported_attachment" })).toMatch(/^plan\.exe ne peut pas être joint/);
    expect(text({ status: 413, code: "invalid_request" }).replace(/\s/g, " ")).toBe(
      "plan.exe dépasse la limite de 10 Mo par fichier.",
    );
    expect(text({ status: 400, code: "invalid_request" })).toMatch(
      /^plan\.exe ne peut pas être joint\u00a0: il est vide/,
    );
    expect(text({ status: 429, code: "rate_limited" })).toMatch(/^Non envoyé\u00a0: trop de fichiers/);
    expect(text({ status: 401, code: "unauthorized" })).toMatch(/reconnectez-vous/);
    expect(text({ status: 500, code: "server_error" })).toBe("Non envoyé. Réessayez.");
    expect(text()).toBe("Non envoyé\u00a0: la connexion a été interrompue.");
  });
});
