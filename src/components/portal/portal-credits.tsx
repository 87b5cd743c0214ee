"use client";
// Credits left, in total and per plan, with when each plan renews, and what was spent by day this month.
import { useTranslation } from "react-i18next";
import type { PortalUsage } from "@/schemas/runs/usage";
import { UsageBars } from "@/components/usage/usage-chart";
import { planPriceText } from "@/lib/plan-price";
import { dateLocale, formatDay, type CreditPlan, type Credits } from "./credits";
import { usePortalLanguage } from "./i18n/provider";

export function PortalCredits({ credits, usage }: { credits: Credits; usage?: PortalUsage }) {
  const { t } = useTranslation();
  const language = usePortalLanguage();
  return (
    <section className="panel portal-credits" aria-labelledby="credits-heading">
      <h2 id="credits-heading" style={{ margin: 0 }}>
        {t("credits.heading")}
      </h2>
      <div className="total" data-testid="credits-left">
        {t("credits.left", { count: credits.left })}
      </div>
      {credits.plans.length === 0 && (
        <p className="muted" style={{ margin: 0 }}>
          {t("credits.noPlan")}
        </p>
      )}
      {credits.plans.length > 0 && (
        <ul>
          {credits.plans.map((plan) => {
            const total = plan.creditAllowance + plan.bonusCredits;
            return (
              <li key={plan.subscriptionId} data-testid="credit-plan">
                <div>
                  <strong>{plan.planName}</strong>: {t("credits.planLeft", { left: plan.creditsLeft, total })}
                  {plan.creditsResetAt ? (
                    <span className="muted">
                      {" "}
                      · {t("credits.renews", { date: formatDay(plan.creditsResetAt, language) })}
                    </span>
                  ) : null}
                </div>
                <progress
                  max={Math.max(1, total)}
                  value={plan.creditsLeft}
                  aria-label={t("credits.planProgress", { plan: plan.planName })}
                />
                <PlanDetails plan={plan} />
              </li>
            );
          })}
        </ul>
      )}
      {usage &&
        (usage.total === 0 ? (
          <p className="muted" style={{ margin: 0 }} data-testid="credits-month-empty">
            {t("credits.monthEmpty")}
          </p>
        ) : (
          <UsageBars
            label={t("credits.monthChart")}
            points={usage.series}
            series={[{ key: "credits", label: t("credits.monthSeries"), color: "var(--portal-link, var(--accent))" }]}
            height={160}
            locale={dateLocale(language)}
            caption={t("credits.monthCaption", { total: usage.total })}
          />
        ))}
    </section>
  );
}

/** What the plan says about itself: its description, shown price and what it includes. */
function PlanDetails({ plan }: { plan: CreditPlan }) {
  const { t } = useTranslation();
  const language = usePortalLanguage();
  const price =
    plan.priceAmount === null || plan.priceAmount === undefined
      ? null
      : planPriceText(
          {
            priceAmount: plan.priceAmount,
            priceCurrency: plan.priceCurrency ?? "USD",
            priceInterval: plan.priceInterval ?? "month",
          },
          dateLocale(language),
          { month: t("credits.perMonth"), year: t("credits.perYear") },
        );
  if (!plan.planDescription && !price && !plan.planFeatures?.length) return null;
  return (
    <div className="portal-plan-details" data-testid="plan-details">
      {(price || plan.planDescription) && (
        <p className="muted">
          {price && <strong data-testid="plan-price">{price}</strong>}
          {price && plan.planDescription && " · "}
          {plan.planDescription}
        </p>
      )}
      {plan.planFeatures && plan.planFeatures.length > 0 && (
        <ul aria-label={t("credits.includes", { plan: plan.planName })}>
          {plan.planFeatures.map((feature, i) => (
            <li key={i}>{feature}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
