"use client";
// Values only the browser knows, read without an effect: the server render (and the first
// render that hydrates it) sees the fallback, the browser its own value.
import { useSyncExternalStore } from "react";

const never = () => () => {};

/** The page's origin (e.g. https://atrium.example.com); "" while rendering on the server. */
export function useBrowserOrigin(): string {
  return useSyncExternalStore(
    never,
    () => window.location.origin,
    () => "",
  );
}

/** A query-string parameter of the page as loaded; undefined on the server. */
export function useSearchParameter(name: string): string | undefined {
  return useSyncExternalStore(
    never,
    () => new URLSearchParams(window.location.search).get(name) ?? undefined,
    () => undefined,
  );
}

/**
 * False on the server and while React hydrates the page, true once the browser runs it: a form
 * is usable only then, since text typed into the server's HTML would be reset by hydration and a
 * submit before it would reload the page.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
