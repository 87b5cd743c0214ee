// Credits left, in total and per plan, with when each plan renews, and what was spent by day this month.
import type { PortalUsage } from "@/schemas/usage";
import { UsageBars } from "@/components/usage/usage-chart";
import { formatDay, type Credits } from "./credits";

export function PortalCredits({ credits, usage }: { credits: Credits; usage?: PortalUsage }) {
  return (
    <section className="panel portal-credits" aria-labelledby="credits-heading">
      <h2 id="credits-heading" style={{ margin: 0 }}>
        Your credits
      </h2>
      <div className="total" data-testid="credits-left">
        {credits.left} {credits.left === 1 ? "credit" : "credits"} left
      </div>
      {credits.plans.length === 0 && (
        <p className="muted" style={{ margin: 0 }}>
          You have no plan with credits.
        </p>
      )}
      {credits.plans.length > 0 && (
        <ul>
          {credits.plans.map((plan) => {
            const total = plan.creditAllowance + plan.bonusCredits;
            return (
              <li key={plan.subscriptionId} data-testid="credit-plan">
                <div>
                  <strong>{plan.planName}</strong>: {plan.creditsLeft} of {total} left
                  {plan.creditsResetAt ? <span className="muted"> · renews {formatDay(plan.creditsResetAt)}</span> : null}
                </div>
                <progress max={Math.max(1, total)} value={plan.creditsLeft} aria-label={`${plan.planName} credits left`} />
              </li>
            );
          })}
        </ul>
      )}
      {usage &&
        (usage.total === 0 ? (
          <p className="muted" style={{ margin: 0 }} data-testid="credits-month-empty">
            You have not used any credits this month. Each message you send to an app uses one.
          </p>
        ) : (
          <UsageBars
            label="Credits you used this month, by day"
            points={usage.series}
            series={[{ key: "credits", label: "Credits", color: "var(--portal-link, var(--accent))" }]}
            height={160}
          />
        ))}
    </section>
  );
}
