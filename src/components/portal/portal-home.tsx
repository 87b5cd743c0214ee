"use client";
// The portal's home: a greeting, the apps the end user can use here (with conversation starters)
// and the credits left per plan with those used this month.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { BonusNotice } from "./bonus-notice";
import { PortalCredits } from "./portal-credits";
import { portalError } from "./portal-errors";
import { PortalErrorLine } from "./portal-error-line";
import { PortalFrame } from "./portal-frame";
import { usePortalTRPC } from "./portal-trpc";
import { usePortalBase } from "./portal-place";
import { markSignedIn } from "./session-memory";
import { handOffStarter } from "./starter-handoff";

export function PortalHome({ portal }: { portal: string }) {
  const trpc = usePortalTRPC();
  const { t } = useTranslation();
  const router = useRouter();
  const me = useQuery(trpc.me.get.queryOptions({ portal }));
  const apps = useQuery({ ...trpc.apps.list.queryOptions({ portal }), enabled: me.isSuccess });
  const usage = useQuery({ ...trpc.credits.usage.queryOptions({ portal }), enabled: me.isSuccess });
  const base = usePortalBase(portal);
  useEffect(() => {
    if (me.isSuccess) markSignedIn(portal);
  }, [me.isSuccess, portal]);

  function start(appId: string, message: string) {
    handOffStarter(appId, message);
    router.push(`${base}/apps/${appId}`);
  }

  return (
    <PortalFrame portal={portal}>
      {(info) => {
        if (me.error)
          return portalError(me.error).status === 401 ? (
            <p className="muted">{t("home.signingYouIn")}</p>
          ) : (
            <PortalErrorLine error={me.error} />
          );
        if (!me.data) return <p className="muted">{t("frame.loading")}</p>;
        const person = me.data.endUser;
        return (
          <>
            <h1>{person.fullName ? t("home.helloName", { name: person.fullName }) : t("home.hello")}</h1>
            {info.greeting && <p className="portal-greeting">{info.greeting}</p>}
            <BonusNotice portal={portal} bonuses={me.data.bonuses} organization={info.organizationName} />
            <section aria-labelledby="apps-heading">
              <h2 id="apps-heading">{t("home.yourApps")}</h2>
              {apps.isLoading && <p className="muted">{t("frame.loading")}</p>}
              {apps.error && <PortalErrorLine error={apps.error} />}
              {apps.data?.apps.length === 0 && (
                <p className="panel" data-testid="no-apps">
                  {t("home.noApps", { organization: info.organizationName })}
                </p>
              )}
              <ul className="portal-apps">
                {apps.data?.apps.map((app) => (
                  <li key={app.id} className="panel portal-app" data-testid="portal-app">
                    <h3>
                      <Link href={`${base}/apps/${app.id}`}>{app.name}</Link>
                    </h3>
                    {app.description && <p className="muted">{app.description}</p>}
                    {app.conversationStarters.length > 0 && (
                      <div className="portal-starters" role="group" aria-label={t("home.ask", { name: app.name })}>
                        {app.conversationStarters.map((starter) => (
                          <button key={starter} type="button" onClick={() => start(app.id, starter)}>
                            {starter}
                          </button>
                        ))}
                      </div>
                    )}
                  </li>
                ))}
              </ul>
            </section>
            <PortalCredits credits={me.data.credits} usage={usage.data} />
          </>
        );
      }}
    </PortalFrame>
  );
}
