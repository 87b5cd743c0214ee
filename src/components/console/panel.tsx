"use client";
import { useId, type FormEvent, type ReactNode } from "react";
import { useHydrated } from "@/lib/browser";
import { ErrorAlert } from "./error-alert";

/**
 * A bordered block of a page with its heading. With `onSubmit` it is a form (the panel's
 * controls stack as `.form`, disabled until the page has hydrated); the heading names it
 * unless `label` does.
 */
export function Panel({
  title,
  headingId,
  label,
  actions,
  onSubmit,
  className,
  testId,
  children,
}: {
  title?: ReactNode;
  /** The heading's id, for links and tests that point at it. */
  headingId?: string;
  /** The accessible name when there is no title, or one other than the title. */
  label?: string;
  /** Controls beside the heading (a filter, a "New" button). */
  actions?: ReactNode;
  onSubmit?: (event: FormEvent<HTMLFormElement>) => void;
  className?: string;
  testId?: string;
  children: ReactNode;
}) {
  const generatedId = useId();
  const id = headingId ?? generatedId;
  const hydrated = useHydrated();
  const classes = ["panel", onSubmit ? "form" : null, className].filter(Boolean).join(" ");
  const naming = label ? { "aria-label": label } : title ? { "aria-labelledby": id } : {};
  const heading = title && (
    <div className="panel-head">
      <h2 id={id}>{title}</h2>
      {actions && <div className="panel-actions">{actions}</div>}
    </div>
  );
  return onSubmit ? (
    <form className={classes} onSubmit={onSubmit} data-testid={testId} {...naming}>
      {heading}
      <fieldset className="panel-fields" disabled={!hydrated}>
        {children}
      </fieldset>
    </form>
  ) : (
    <section className={classes} data-testid={testId} {...naming}>
      {heading}
      {children}
    </section>
  );
}

/**
 * The end of a form: the submit's error (if any) above its buttons. `pending` disables the
 * submit button while the call runs.
 */
export function FormActions({
  error,
  submitLabel,
  pending = false,
  disabled = false,
  children,
}: {
  error?: unknown;
  /** The primary submit button's text; leave out to pass only `children`. */
  submitLabel?: string;
  pending?: boolean;
  disabled?: boolean;
  /** More buttons after the submit (Cancel, Delete). */
  children?: ReactNode;
}) {
  return (
    <>
      <ErrorAlert error={error} />
      <div className="form-actions">
        {submitLabel && (
          <button className="primary" type="submit" disabled={pending || disabled}>
            {submitLabel}
          </button>
        )}
        {children}
      </div>
    </>
  );
}
