"use client";
import { Toaster, toast } from "sonner";

/** The console's one place for toasts; rendered once by the shell. */
export function ConsoleToaster() {
  return <Toaster position="bottom-right" richColors closeButton toastOptions={{ duration: 6000 }} />;
}

/** Says that something succeeded; `undo` puts it back where the data allows. */
export function notifyDone(message: string, undo?: () => void) {
  toast.success(message, undo ? { action: { label: "Undo", onClick: undo } } : undefined);
}

/** Says that something failed after the page moved on (most failures show in place). */
export function notifyFailed(message: string) {
  toast.error(message);
}
