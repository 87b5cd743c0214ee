// The part of Redoc's standalone bundle the docs page calls (its package ships no types for it).
declare module "redoc/bundles/redoc.standalone.js" {
  export function init(
    specOrSpecUrl: string | object,
    options: Record<string, unknown>,
    element: HTMLElement,
    callback?: (error?: unknown) => void,
  ): void;
}
