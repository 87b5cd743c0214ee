"use client";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { Fragment, useEffect, useState } from "react";
import { roleAtLeast, type Role } from "@/schemas/auth";
import { useTRPC } from "@/lib/trpc";
import "./console-nav.css";

type NavLink = { href: string; label: string; role?: Role };

/** The console's areas in groups; a link with a role shows only to members with at least it. */
const GROUPS: { label?: string; links: NavLink[] }[] = [
  { links: [{ href: "/", label: "Overview" }] },
  {
    label: "Provisioning",
    links: [
      { href: "/end-users", label: "End users" },
      { href: "/plans", label: "Tier plans" },
      { href: "/groups", label: "User groups" },
      { href: "/portals", label: "Portals" },
      { href: "/outbox", label: "Outbox", role: "admin" },
    ],
  },
  {
    label: "Knowledge",
    links: [
      { href: "/knowledge", label: "Knowledge" },
      { href: "/reviews", label: "Reviews" },
    ],
  },
  {
    label: "Build and run",
    links: [
      { href: "/agents", label: "Agents" },
      { href: "/flows", label: "Flows" },
      { href: "/apps", label: "Apps" },
      { href: "/chat", label: "Chat" },
      { href: "/executions", label: "Executions" },
    ],
  },
  {
    label: "Organization",
    links: [
      { href: "/keys", label: "API keys" },
      { href: "/mcp", label: "MCP" },
      { href: "/members", label: "Members" },
      { href: "/settings", label: "Settings" },
      { href: "/docs", label: "API docs" },
    ],
  },
];

/** Areas the console grows into; listed so people know where things will live. */
const UPCOMING: string[] = [];

export function ConsoleNav({ email, role }: { email: string; role: string }) {
  const pathname = usePathname();
  const router = useRouter();
  const trpc = useTRPC();
  const signOut = useMutation(trpc.auth.signOut.mutationOptions({ onSuccess: () => router.replace("/sign-in") }));
  // On a phone the links fold behind a Menu button; moving to another page folds them again.
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [pathname]);

  return (
    <nav className={open ? "sidebar open" : "sidebar"} aria-label="Console">
      <div className="sidebar-top">
        <div className="brand">Atrium</div>
        <button type="button" className="menu-toggle" aria-expanded={open} aria-controls="console-links" onClick={() => setOpen(!open)}>
          Menu
        </button>
      </div>
      <div id="console-links" className="sidebar-links">
        {GROUPS.map((group) => (
          <Fragment key={group.label ?? "top"}>
            {group.label && <div className="section">{group.label}</div>}
            {group.links
              .filter((link) => !link.role || roleAtLeast(role as Role, link.role))
              .map((link) => (
                <Link key={link.href} href={link.href} aria-current={pathname === link.href || (link.href !== "/" && pathname.startsWith(`${link.href}/`)) ? "page" : undefined}>
                  {link.label}
                </Link>
              ))}
          </Fragment>
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
      </div>
    </nav>
  );
}
