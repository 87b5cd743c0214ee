"use client";
// The chat pieces' text: in the portal's language inside the portal (its I18nextProvider), in
// English in the console, which has no provider.
import type { i18n } from "i18next";
import { useContext } from "react";
import { I18nContext, useTranslation } from "react-i18next";
import { createPortalI18n } from "@/components/portal/i18n";
import { formatFileSize } from "@/lib/file-size";

let english: i18n | null = null;

function useChatI18n(): i18n {
  const context = useContext(I18nContext);
  return context?.i18n ?? (english ??= createPortalI18n("en"));
}

export function useChatText() {
  return useTranslation("chat", { i18n: useChatI18n() }).t;
}

/** File sizes in the chat's language ("1,5 Mo" in the French portal). */
export function useChatFileSize(): (bytes: number) => string {
  const { i18n: instance } = useTranslation("chat", { i18n: useChatI18n() });
  return (bytes) => formatFileSize(bytes, instance.language);
}
