"use client";
import { usePathname } from "next/navigation";
import { useCallback, useState } from "react";

/**
 * State that belongs to the page it was set on: after a navigation it reads `initial` again (a
 * menu folds, a pending question is forgotten) without an effect that resets it. The setter
 * records the page the browser is on when it is called, so a listener set up once may keep it
 * (with a primitive `initial`, the setter stays the same function).
 */
export function usePageState<T>(initial: T): [T, (next: T | ((current: T) => T)) => void] {
  const pathname = usePathname();
  const [state, setState] = useState({ pathname, value: initial });
  const value = state.pathname === pathname ? state.value : initial;
  const set = useCallback(
    (next: T | ((current: T) => T)) =>
      setState((current) => {
        const here = window.location.pathname;
        const before = current.pathname === here ? current.value : initial;
        return { pathname: here, value: typeof next === "function" ? (next as (current: T) => T)(before) : next };
      }),
    [initial],
  );
  return [value, set];
}
