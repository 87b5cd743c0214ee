// A plan's shown price in words ("€29.00 a month"), for the console and the portal alike.
// Amounts are kept in the currency's smallest unit (cents), as payment processors keep them.

/** Digits after the decimal point of a currency (2 for EUR, 0 for JPY). */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

export function planPriceText(
  plan: { priceAmount: number | null; priceCurrency: string; priceInterval: "month" | "year" },
  locale?: string,
  words: { month: string; year: string } = { month: "a month", year: "a year" },
): string | null {
  if (plan.priceAmount === null) return null;
  const digits = currencyDigits(plan.priceCurrency);
  let amount: string;
  try {
    amount = new Intl.NumberFormat(locale, { style: "currency", currency: plan.priceCurrency }).format(
      plan.priceAmount / 10 ** digits,
    );
  } catch {
    amount = `${(plan.priceAmount / 10 ** digits).toFixed(digits)} ${plan.priceCurrency}`;
  }
  return `${amount} ${words[plan.priceInterval]}`;
}

/** "29.00" (in the currency's main unit, as typed) → 2900, or null when blank; NaN when not a price. */
export function parsePrice(text: string, currency: string): number | null {
  const trimmed = text.trim().replace(",", ".");
  if (!trimmed) return null;
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return Number.NaN;
  return Math.round(Number(trimmed) * 10 ** currencyDigits(currency));
}

/** 2900 → "29.00", as a price field shows it. */
export function priceInputText(amount: number | null, currency: string): string {
  if (amount === null) return "";
  const digits = currencyDigits(currency);
  return (amount / 10 ** digits).toFixed(digits);
}
