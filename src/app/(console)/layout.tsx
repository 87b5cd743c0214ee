import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { ConsoleShell, UnsavedChangesGuard } from "@/components/console";
import { SESSION_COOKIE } from "@/server/auth/cookies";
import { getDb } from "@/server/db";
import { actorForSession } from "@/server/services/identity/sessions";

export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  const actor = await actorForSession(getDb(), token);
  if (!actor) redirect("/sign-in");
  return (
    <ConsoleShell email={actor.member.email} role={actor.member.role}>
      {children}
      {/* Asks before a link leaves a form with unsaved edits (outside the shell's module: the dialog needs the shell's role). */}
      <UnsavedChangesGuard />
    </ConsoleShell>
  );
}
