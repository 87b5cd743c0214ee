// The portal's i18next instances: one per page (the language can change in the page), made
// synchronously from the bundled resources so the server and the first render agree.
import { createInstance, type i18n } from "i18next";
import type { PortalLanguage } from "@/schemas/portal/portal";
import { de } from "./de";
import { en, type Messages } from "./en";
import { fr } from "./fr";
import { FALLBACK_LANGUAGE } from "./languages";

export const RESOURCES: Record<PortalLanguage, Messages> = { en, fr, de };

declare module "i18next" {
  interface CustomTypeOptions {
    defaultNS: "portal";
    resources: typeof en;
  }
}

export function createPortalI18n(language: PortalLanguage): i18n {
  const instance = createInstance();
  void instance.init({
    lng: language,
    fallbackLng: FALLBACK_LANGUAGE,
    resources: RESOURCES,
    ns: ["portal", "chat"],
    defaultNS: "portal",
    initAsync: false,
    // React escapes what it renders.
    interpolation: { escapeValue: false },
  });
  return instance;
}
