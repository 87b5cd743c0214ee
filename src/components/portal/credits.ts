// Credits in words: dates, and the plain message when an end user has none left, in the
// portal's language.
import type { TFunction } from "i18next";

export interface CreditPlan {
  subscriptionId: string;
  planName: string;
  creditAllowance: number;
  bonusCredits: number;
  creditsUsed: number;
  creditsLeft: number;
  creditsResetAt: string | Date | null;
  /** What the plan says about itself (absent where a caller has only the numbers). */
  planDescription?: string;
  planFeatures?: string[];
  priceAmount?: number | null;
  priceCurrency?: string;
  priceInterval?: "month" | "year";
}

export interface Credits {
  left: number;
  plans: CreditPlan[];
}

/** The Intl locale of a portal language: English as in en-GB ("23 December 2026"), one order for every English reader. */
export function dateLocale(language: string): string {
  return language === "en" ? "en-GB" : language;
}

export function formatDay(value: string | Date, language: string): string {
  return new Intl.DateTimeFormat(dateLocale(language), { day: "numeric", month: "long", year: "numeric" }).format(
    new Date(value),
  );
}

/** When the first of the end user's pools renews, if any does. */
export function nextRenewal(plans: CreditPlan[]): Date | null {
  const dates = plans.flatMap((plan) => (plan.creditsResetAt ? [new Date(plan.creditsResetAt)] : []));
  return dates.length === 0 ? null : new Date(Math.min(...dates.map((d) => d.getTime())));
}

/**
 * The message for a 402: the end user's pools are empty (they renew on a date), or the
 * organization itself is out of credits, in which case the server's message says so.
 */
export function outOfCreditsMessage(
  t: TFunction<"portal">,
  language: string,
  credits: Credits | undefined,
  serverMessage: string,
): string {
  if (!credits || credits.left > 0) return serverMessage;
  if (credits.plans.length === 0) return t("credits.noCredits");
  const renewal = nextRenewal(credits.plans);
  return renewal ? t("credits.usedAllRenew", { date: formatDay(renewal, language) }) : t("credits.usedAll");
}
