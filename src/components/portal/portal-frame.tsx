"use client";
// The portal's own page frame (not the console shell): its logo, name and accent colour, the
// signed-in navigation. Page titles come from the pages' metadata.
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import type { CSSProperties, ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { LanguageMenu } from "./i18n/provider";
import { portalError } from "./portal-errors";
import { PortalErrorLine } from "./portal-error-line";
import { usePortalBase, usePortalPlace } from "./portal-place";
import { usePortalTRPC } from "./portal-trpc";
import { markSignedOut } from "./session-memory";
import { portalTheme } from "@/lib/portal-theme";
import "./portal.css";

export type PortalInfo = {
  id: string;
  slug: string;
  name: string;
  greeting: string;
  logoUrl: string | null;
  accentColor: string | null;
  organizationName: string;
  signIn: "email_code" | "sso" | "both";
  defaultLanguage: string;
  /** "Continue with <ssoName>" when the portal allows single sign-on; null otherwise. */
  ssoName: string | null;
};

export function usePortalInfo(portal: string) {
  const trpc = usePortalTRPC();
  return useQuery({ ...trpc.portal.get.queryOptions({ portal }), staleTime: 60_000 });
}

export function PortalFrame({
  portal,
  signedIn = true,
  children,
}: {
  portal: string;
  /** Shows the navigation and the sign-out button. */
  signedIn?: boolean;
  children: ReactNode | ((info: PortalInfo) => ReactNode);
}) {
  const trpc = usePortalTRPC();
  const { t } = useTranslation();
  const router = useRouter();
  const pathname = usePathname();
  const info = usePortalInfo(portal);
  const base = usePortalBase(portal);
  const { embedded } = usePortalPlace();
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      onSettled: () => {
        markSignedOut(portal);
        router.replace(`${base}/sign-in`);
      },
    }),
  );
  const name = info.data?.portal.name;

  const theme = portalTheme(info.data?.portal.accentColor);
  const style = {
    "--accent": theme.accent,
    "--accent-text": theme.accentText,
    "--portal-link-light": theme.link,
    "--portal-link-dark": theme.linkDark,
  } as CSSProperties;
  const missing = info.error && portalError(info.error).code === "not_found";

  return (
    <div className="portal" style={style}>
      <header className="portal-header">
        <Link href={base} className="portal-brand">
          {info.data?.portal.logoUrl ? <img src={info.data.portal.logoUrl} alt="" className="portal-logo" /> : null}
          <span>{name ?? (missing ? t("frame.portal") : " ")}</span>
        </Link>
        <div className="portal-tools">
          {signedIn && info.data && (
            <nav aria-label={t("frame.navigation")} className="portal-nav">
              <Link href={base} aria-current={pathname === base ? "page" : undefined}>
                {t("frame.apps")}
              </Link>
              <Link
                href={`${base}/conversations`}
                aria-current={pathname === `${base}/conversations` ? "page" : undefined}
              >
                {t("frame.conversations")}
              </Link>
            </nav>
          )}
          {/* In the embed, the page the chat sits in decides who is signed in. */}
          {signedIn && info.data && !embedded && (
            <button
              type="button"
              className="portal-signout"
              onClick={() => signOut.mutate({ portal })}
              disabled={signOut.isPending}
            >
              {t("frame.signOut")}
            </button>
          )}
          <LanguageMenu />
        </div>
      </header>
      <main className="portal-main">
        {info.isLoading && <p className="muted">{t("frame.loading")}</p>}
        {missing && (
          <>
            <h1>{t("frame.notFoundTitle")}</h1>
            <p>{t("frame.notFoundText")}</p>
          </>
        )}
        {info.error && !missing && <PortalErrorLine error={info.error} />}
        {info.data && (typeof children === "function" ? children(info.data.portal) : children)}
      </main>
    </div>
  );
}
