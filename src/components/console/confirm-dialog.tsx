"use client";
import { TriangleAlert } from "lucide-react";
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { minimumRole, type Capability } from "@/schemas/permissions";
import { useMay } from "./app-shell";

/**
 * The console's one confirmation for destructive or production-changing actions (delete,
 * revoke, make live, approve or reject, role change): a native modal <dialog>, focus on Cancel
 * when it opens and back on the button that opened it when it closes.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  destructive = true,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  /** What will happen, in the user's words. */
  children?: ReactNode;
  confirmLabel: string;
  destructive?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const openerRef = useRef<HTMLElement | null>(null);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      openerRef.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      cancelRef.current?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  return (
    <dialog
      ref={dialogRef}
      className="confirm"
      aria-labelledby={titleId}
      aria-describedby={children ? bodyId : undefined}
      onClose={() => {
        openerRef.current?.focus();
        onClose();
      }}
    >
      <h2 id={titleId}>
        {destructive && <TriangleAlert size={20} aria-hidden className="icon" color="var(--danger)" />}
        {title}
      </h2>
      {children && (
        <div id={bodyId} className="confirm-body">
          {children}
        </div>
      )}
      <div className="confirm-actions">
        <button ref={cancelRef} type="button" onClick={() => dialogRef.current?.close()}>
          Cancel
        </button>
        <button
          type="button"
          className={destructive ? "danger solid" : "primary"}
          onClick={() => {
            dialogRef.current?.close();
            onConfirm();
          }}
        >
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A button that asks through the ConfirmDialog before it runs `onConfirm`. */
export function ConfirmButton({
  label,
  title,
  description,
  confirmLabel,
  onConfirm,
  destructive = true,
  disabled,
  needs,
  icon,
  className,
}: {
  label: string;
  title: string;
  description?: ReactNode;
  /** The dialog's button; the action's own verb ("Delete", "Make live"). */
  confirmLabel?: string;
  onConfirm: () => void;
  destructive?: boolean;
  disabled?: boolean;
  /** What the action needs (the permission table): without it the button is disabled and says who may. */
  needs?: Capability;
  icon?: ReactNode;
  className?: string;
}) {
  const [open, setOpen] = useState(false);
  const allowed = useMay(needs ?? "read");
  if (!allowed) return <RefusedButton label={label} icon={icon} needs={needs ?? "read"} />;
  return (
    <>
      <button
        type="button"
        className={className ?? (destructive ? "danger" : undefined)}
        disabled={disabled}
        onClick={() => setOpen(true)}
      >
        {icon}
        {label}
      </button>
      <ConfirmDialog
        open={open}
        title={title}
        confirmLabel={confirmLabel ?? label}
        destructive={destructive}
        onConfirm={onConfirm}
        onClose={() => setOpen(false)}
      >
        {description}
      </ConfirmDialog>
    </>
  );
}

/** A page's own action the member's role does not allow: the button, disabled, with who may beside it. */
export function RefusedButton({ label, icon, needs }: { label: string; icon?: ReactNode; needs: Capability }) {
  const reasonId = useId();
  return (
    <span className="refused">
      <button type="button" disabled aria-describedby={reasonId}>
        {icon}
        {label}
      </button>
      <span id={reasonId} className="muted">
        {whoMay(needs)}
      </span>
    </span>
  );
}

const WHO_MAY = {
  viewer: "Everyone",
  member: "Members and above only",
  admin: "Admins and above only",
  owner: "Owners only",
} as const;

function whoMay(capability: Capability): string {
  return WHO_MAY[minimumRole(capability)];
}
