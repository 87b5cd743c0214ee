// The portal's pure pieces: readable colours from any accent, the plain out-of-credits and
// throttling messages.
import { describe, expect, it } from "vitest";
import { StreamError } from "@/components/chat/stream-reply";
import { nextRenewal, outOfCreditsMessage, type Credits } from "@/components/portal/credits";
import { isUnauthorized, portalError, signInErrorMessage, waitInWords } from "@/components/portal/portal-errors";
import { contrastRatio, portalTheme } from "@/components/portal/theme";

describe("portalTheme", () => {
  it("keeps button text and links readable (4.5:1) whatever accent an admin picks", () => {
    // Mid-tones (#777777, #e8590c) are where neither white nor a dark grey would do.
    for (const accent of ["#ffdd00", "#ffffff", "#000000", "#3b5bdb", "#12b886", "#ff8787", "#7048e8", "#777777", "#e8590c", "#228be6"]) {
      const theme = portalTheme(accent);
      expect(contrastRatio(theme.accent, theme.accentText), accent).toBeGreaterThanOrEqual(4.5);
      expect(contrastRatio(theme.link, "#f6f7f9"), accent).toBeGreaterThanOrEqual(4.5);
      // The dark theme's page, panel and the end user's own messages (src/app/theme.css).
      for (const background of ["#111418", "#1a1e24", "#232c4a"]) expect(contrastRatio(theme.linkDark, background), accent).toBeGreaterThanOrEqual(4.5);
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
    const credits: Credits = { left: 0, plans: [plan(0, "2027-01-15T10:00:00.000Z"), plan(0, "2026-12-23T10:00:00.000Z")] };
    expect(nextRenewal(credits.plans)?.toISOString()).toBe("2026-12-23T10:00:00.000Z");
    expect(outOfCreditsMessage(credits, "server")).toBe("You've used all your credits. They renew on 23 December 2026.");
  });

  it("keeps the server's message when the end user still has credits (the organization ran out)", () => {
    expect(outOfCreditsMessage({ left: 2, plans: [plan(2, "2026-12-23T10:00:00.000Z")] }, "The organization is out of credits.")).toBe("The organization is out of credits.");
    expect(outOfCreditsMessage(undefined, "From the server")).toBe("From the server");
  });

  it("tells an end user without a plan that they have no credits", () => {
    expect(outOfCreditsMessage({ left: 0, plans: [] }, "server")).toMatch(/don't have any credits/);
  });
});

describe("portal errors", () => {
  const trpcError = (data: object, message = "Refused") => Object.assign(new Error(message), { data });

  it("reads status, code and the wait from the tRPC door and from the chat stream", () => {
    expect(portalError(trpcError({ httpStatus: 429, appError: { code: "rate_limited", retryAfterSeconds: 42 } }))).toEqual({
      status: 429,
      code: "rate_limited",
      message: "Refused",
      retryAfterSeconds: 42,
    });
    expect(portalError(new StreamError("No credits", 402, "insufficient_credits"))).toEqual({ status: 402, code: "insufficient_credits", message: "No credits" });
    expect(isUnauthorized(trpcError({ httpStatus: 401, appError: { code: "unauthorized" } }))).toBe(true);
    expect(isUnauthorized(new StreamError("Sign in", 401, "unauthorized"))).toBe(true);
    expect(isUnauthorized(trpcError({ httpStatus: 404, appError: { code: "not_found" } }))).toBe(false);
  });

  it("says how long to wait when sign-in is throttled, and passes other messages through", () => {
    expect(signInErrorMessage(trpcError({ httpStatus: 429, appError: { code: "rate_limited", retryAfterSeconds: 42 } }))).toBe("Too many attempts. Try again in 42 seconds.");
    expect(signInErrorMessage(trpcError({ httpStatus: 429, appError: { code: "rate_limited", retryAfterSeconds: 300 } }))).toBe("Too many attempts. Try again in 5 minutes.");
    const wrong = "That code is wrong or has expired. Request a new one.";
    expect(signInErrorMessage(trpcError({ httpStatus: 400, appError: { code: "invalid_code" } }, wrong))).toBe(wrong);
    expect(waitInWords(1)).toBe("1 second");
    expect(waitInWords(61)).toBe("2 minutes");
  });
});
