"use client";
// Credits left, in total and per plan, with when each plan renews, and what was spent by day this month.
import { useTranslation } from "react-i18next";
import type { PortalUsage } from "@/schemas/usage";
import { UsageBars } from "@/components/usage/usage-chart";
import { formatDay, type Credits } from "./credits";
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
          />
        ))}
    </section>
  );
}
