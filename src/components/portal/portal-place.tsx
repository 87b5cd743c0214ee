"use client";
// Where the portal's pages live: at /p/<portal> for a visit, or at /embed/<portal> inside the
// organization's own page, where the identity comes from that page (no sign-in, no sign-out) and
// an ended session is reported to it instead of sending the person to sign in.
import { createContext, useContext } from "react";

export interface PortalPlace {
  embedded: boolean;
  /** What a 401 does in the embed: ask the page for a new token. */
  onSessionEnded?: () => void;
}

const PortalPlaceContext = createContext<PortalPlace>({ embedded: false });

export const PortalPlaceProvider = PortalPlaceContext.Provider;

export function usePortalPlace(): PortalPlace {
  return useContext(PortalPlaceContext);
}

/** The path the portal's pages start with, here. */
export function usePortalBase(portal: string): string {
  return `/${usePortalPlace().embedded ? "embed" : "p"}/${encodeURIComponent(portal)}`;
}
