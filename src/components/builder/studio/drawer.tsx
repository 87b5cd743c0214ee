"use client";
// A side sheet over the studio (a native modal <dialog>: focus kept inside, Escape closes): the
// flow's settings, and on a phone a step's settings, the node library and the test run.
import { X } from "lucide-react";
import { useEffect, useRef, type ReactNode } from "react";

export function Drawer({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Closed by the page (another sheet opened): its close event is not the person closing it.
  const closedByPage = useRef(false);
  useEffect(() => {
    const dialog = ref.current;
    if (open && dialog && !dialog.open) dialog.showModal();
    else if (!open && dialog?.open) {
      closedByPage.current = true;
      dialog.close();
    }
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="studio-drawer"
      aria-label={title}
      onClose={() => (closedByPage.current ? (closedByPage.current = false) : onClose())}
    >
      <div className="studio-drawer-head">
        <h2>{title}</h2>
        <button type="button" onClick={onClose} aria-label={`Close ${title.toLowerCase()}`}>
          <X size={18} aria-hidden />
        </button>
      </div>
      {open && <div className="studio-drawer-body">{children}</div>}
    </dialog>
  );
}
