"use client";
// The portal's language in the browser: the server's choice first (so the first render matches
// the page it sent), then the person's own choice from the language menu if they made one on this
// browser, else their browser's languages, else the portal's default. <html lang> follows.
import { useEffect, useState, type ReactNode } from "react";
import { I18nextProvider, useTranslation } from "react-i18next";
import { PORTAL_LANGUAGES, type PortalLanguage } from "@/schemas/portal/portal";
import { createPortalI18n } from "./index";
import { isPortalLanguage, LANGUAGE_NAMES, LANGUAGE_STORAGE_KEY, pickLanguage } from "./languages";

function storedLanguage(): PortalLanguage | null {
  try {
    const value = window.localStorage.getItem(LANGUAGE_STORAGE_KEY);
    return isPortalLanguage(value) ? value : null;
  } catch {
    // Storage can be switched off; the browser's languages still apply.
    return null;
  }
}

export function PortalI18nProvider({
  language,
  portalDefault,
  children,
}: {
  language: PortalLanguage;
  portalDefault: PortalLanguage;
  children: ReactNode;
}) {
  const [i18n] = useState(() => createPortalI18n(language));
  useEffect(() => {
    const follow = (lng: string) => {
      document.documentElement.lang = lng;
    };
    i18n.on("languageChanged", follow);
    const wanted =
      storedLanguage() ??
      pickLanguage(navigator.languages?.length ? navigator.languages : [navigator.language], portalDefault);
    if (wanted !== i18n.language) void i18n.changeLanguage(wanted);
    else follow(wanted);
    return () => i18n.off("languageChanged", follow);
  }, [i18n, portalDefault]);
  return <I18nextProvider i18n={i18n}>{children}</I18nextProvider>;
}

/** The portal's language, with Intl formatting in it. */
export function usePortalLanguage(): PortalLanguage {
  const { i18n } = useTranslation();
  return isPortalLanguage(i18n.language) ? i18n.language : "en";
}

/** The language menu in the portal's header; the choice is remembered on this browser. */
export function LanguageMenu() {
  const { t, i18n } = useTranslation();
  const current = usePortalLanguage();
  function choose(language: PortalLanguage) {
    try {
      window.localStorage.setItem(LANGUAGE_STORAGE_KEY, language);
    } catch {
      // Not remembered, still switched.
    }
    void i18n.changeLanguage(language);
  }
  return (
    <span className="portal-language">
      <select
        aria-label={t("frame.language")}
        value={current}
        onChange={(e) => choose(e.target.value as PortalLanguage)}
        data-testid="portal-language"
      >
        {PORTAL_LANGUAGES.map((language) => (
          <option key={language} value={language} lang={language}>
            {LANGUAGE_NAMES[language]}
          </option>
        ))}
      </select>
      {/* On a phone the menu shows the language's code ("FR") over the unseen select, which
          still takes the tap and opens the list of names: the header keeps to two rows. */}
      <span className="portal-language-code" aria-hidden="true">
        {current.toUpperCase()}
      </span>
    </span>
  );
}
