"use client";
import { ArrowLeft } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { ErrorAlert } from "./error-alert";

/** The browser tab's title for a console page: "<Page> · Atrium". */
export function pageTitle(title: string): string {
  return `${title} · Atrium`;
}

/** A heading that wraps an email (an end user's page) after its "@" rather than mid-word. */
function wrappable(title: string): ReactNode {
  const at = title.indexOf("@");
  if (at <= 0) return title;
  return (
    <>
      {title.slice(0, at + 1)}
      <wbr />
      {title.slice(at + 1)}
    </>
  );
}

/**
 * A page's heading, its one-line purpose and its actions; also names the browser tab. Every
 * console page renders exactly one, so the title is set one way everywhere.
 */
export function PageHeader({
  title,
  description,
  actions,
  back,
  headingId,
  children,
}: {
  title: string;
  /** The heading's id, for a form or section it names. */
  headingId?: string;
  description?: ReactNode;
  actions?: ReactNode;
  /** The page this one belongs to, shown above the title. */
  back?: { href: string; label: string };
  /** Shown under the title, e.g. a status badge or the id to copy. */
  children?: ReactNode;
}) {
  return (
    <header className="page-header">
      {/* React hoists the title into <head>, server-rendered too; the root layout sets none for console pages. */}
      <title>{pageTitle(title)}</title>
      <div>
        {back && (
          <Link className="back" href={back.href}>
            <ArrowLeft size={16} aria-hidden className="icon" />
            {back.label}
          </Link>
        )}
        <h1 id={headingId}>{wrappable(title)}</h1>
        {description && <p className="description">{description}</p>}
        {children}
      </div>
      {actions && <div className="actions">{actions}</div>}
    </header>
  );
}

/**
 * A page whose heading waits on what it shows: the tab is named by the kind of page at once
 * ("End user · Atrium"), not left blank until the data arrive.
 */
export function PageLoading({ title }: { title: string }) {
  return (
    <>
      <title>{pageTitle(title)}</title>
      <p className="muted" role="status">
        Loading…
      </p>
    </>
  );
}

/** A page that could not load what it shows: its kind as the heading, the way back, and why. */
export function PageFailed({
  title,
  back,
  error,
}: {
  title: string;
  back?: { href: string; label: string };
  error: unknown;
}) {
  return (
    <>
      <PageHeader title={title} back={back} />
      <ErrorAlert error={error} />
    </>
  );
}
