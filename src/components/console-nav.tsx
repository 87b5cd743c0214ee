"use client";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useTRPC } from "@/lib/trpc";

const LINKS = [
  { href: "/", label: "Overview" },
  { href: "/end-users", label: "End users" },
  { href: "/plans", label: "Tier plans" },
  { href: "/groups", label: "User groups" },
  { href: "/portals", label: "Portals" },
  { href: "/knowledge", label: "Knowledge" },
  { href: "/reviews", label: "Reviews" },
  { href: "/keys", label: "API keys" },
  { href: "/mcp", label: "MCP" },
  { href: "/members", label: "Members" },
  { href: "/agents", label: "Agents" },
  { href: "/flows", label: "Flows" },
  { href: "/apps", label: "Apps" },
  { href: "/chat", label: "Chat" },
  { href: "/executions", label: "Executions" },
  { href: "/settings", label: "Settings" },
  { href: "/docs", label: "API docs" },
];

/** Areas the console grows into; listed so people know where things will live. */
const UPCOMING: string[] = [];

export function ConsoleNav({ email, role }: { email: string; role: string }) {
  const pathname = usePathname();
  const router = useRouter();
  const trpc = useTRPC();
  const signOut = useMutation(trpc.auth.signOut.mutationOptions({ onSuccess: () => router.replace("/sign-in") }));

  return (
    <nav className="sidebar" aria-label="Console">
      <div className="brand">Atrium</div>
      {LINKS.map((link) => (
        <Link key={link.href} href={link.href} aria-current={pathname === link.href || (link.href !== "/" && pathname.startsWith(`${link.href}/`)) ? "page" : undefined}>
          {link.label}
        </Link>
      ))}
      {UPCOMING.length > 0 && <div className="section">Coming next</div>}
      {UPCOMING.map((label) => (
        <span key={label} className="soon" title="Not available yet">
          {label}
        </span>
      ))}
      <div className="who">
        <div>{email}</div>
        <div>{role}</div>
        <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending} style={{ marginTop: "0.5rem" }}>
          Sign out
        </button>
      </div>
    </nav>
  );
}
