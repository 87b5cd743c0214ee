"use client";
import { Pencil } from "lucide-react";
import type { ComponentProps, ReactNode } from "react";

/** How a button reads: the form's main action, an ordinary one, a destructive one, or text. */
export type ButtonVariant = "primary" | "secondary" | "danger" | "ghost" | "link";
/** `icon` is a square button holding only an icon (give it an aria-label). */
export type ButtonSize = "small" | "medium" | "icon";

const VARIANT_CLASS: Record<ButtonVariant, string | null> = {
  primary: "primary",
  // The console's plain button is the secondary one: the stylesheet styles a bare <button> so.
  secondary: null,
  danger: "danger",
  ghost: "ghost",
  link: "link",
};
const SIZE_CLASS: Record<ButtonSize, string | null> = { small: "small-button", medium: null, icon: "icon-only" };

/** The class list a Button renders, for a link styled as a button (`<Link className={buttonClass(…)}>`). */
export function buttonClass(variant: ButtonVariant = "secondary", size: ButtonSize = "medium", extra?: string) {
  return [VARIANT_CLASS[variant], SIZE_CLASS[size], extra].filter(Boolean).join(" ") || undefined;
}

/**
 * The console's button. `type` is "button" unless a form's submit says "submit"; `busy` marks a
 * call in flight (aria-busy, and disabled so it is not sent twice); `className` adds a page's
 * own layout class (`load-more`), never a colour.
 */
export function Button({
  variant = "secondary",
  size = "medium",
  busy = false,
  type = "button",
  className,
  disabled,
  children,
  ...rest
}: Omit<ComponentProps<"button">, "type"> & {
  variant?: ButtonVariant;
  size?: ButtonSize;
  busy?: boolean;
  type?: "button" | "submit" | "reset";
}) {
  return (
    <button
      {...rest}
      type={type}
      className={buttonClass(variant, size, className)}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
    >
      {children}
    </button>
  );
}

/**
 * A row's Edit button, for a list whose form opens above it: pressed while that row is the one
 * being edited. `children` names the action where "Edit" would not (a price not set yet).
 */
export function EditButton({
  editing,
  onClick,
  children = "Edit",
  ...rest
}: { editing: boolean; onClick: () => void; children?: ReactNode } & Pick<ComponentProps<"button">, "aria-label">) {
  return (
    <button {...rest} type="button" onClick={onClick} aria-pressed={editing}>
      <Pencil size={16} aria-hidden className="icon" />
      {children}
    </button>
  );
}
