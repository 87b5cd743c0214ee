"use client";
// The chat pieces' text: in the portal's language inside the portal (its I18nextProvider), in
// English in the console, which has no provider.
import type { i18n } from "i18next";
import { useContext } from "react";
import { I18nContext, useTranslation } from "react-i18next";
import { createPortalI18n } from "@/components/portal/i18n";

let english: i18n | null = null;

export function useChatText() {
  const context = useContext(I18nContext);
  const instance = context?.i18n ?? (english ??= createPortalI18n("en"));
  return useTranslation("chat", { i18n: instance }).t;
}
