// The portal's pure pieces: readable colours from any accent, the plain out-of-credits and
// throttling messages, in English and in French.
import { describe, expect, it } from "vitest";
import { StreamError } from "@/components/chat/stream-reply";
import { nextRenewal, outOfCreditsMessage, type Credits } from "@/components/portal/credits";
import { createPortalI18n } from "@/components/portal/i18n";
import { isUnauthorized, portalError, portalErrorText, waitInWords } from "@/components/portal/portal-errors";
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

  it("says how long to wait when sign-in is throttled, words known codes itself and passes other messages through", () => {
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
    expect(
      portalErrorText(
        english,
        trpcError({ httpStatus: 400, appError: { code: "invalid_request" } }, "Invalid request: email"),
      ),
    ).toBe("Invalid request: email");
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
