// Links from the usage charts to the Executions page, whose filters live in its URL
// (src/app/(console)/executions/page.tsx): `status` takes the run statuses and these two.

/** What usage counts as failures: status failed or output_invalid (GET /executions?outcome=failure). */
export const FAILURES = "failures";
/** Runs refused before they ran (GET /usage/refusals), by `code`. */
export const REFUSED = "refused";

/** The Executions page filtered so (its URL keys: status, endUser, item, itemKind, portal, code). */
export const executionsHref = (filter: Record<string, string>) =>
  `/executions?${new URLSearchParams(filter).toString()}`;
