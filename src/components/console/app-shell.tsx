"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import {
  Bell,
  Blocks,
  BookOpen,
  Bot,
  Building2,
  Cable,
  ClipboardCheck,
  FileCode,
  Hand,
  History,
  Coins,
  Cpu,
  House,
  KeyRound,
  Layers,
  LayoutGrid,
  LogOut,
  Mail,
  Menu,
  Search,
  MessageSquare,
  Plug,
  Settings,
  ShieldCheck,
  Sparkles,
  UserCircle,
  Users,
  UsersRound,
  Workflow,
  X,
  type LucideIcon,
  ScrollText,
  Webhook,
} from "lucide-react";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { createContext, useContext, type ReactNode } from "react";
import type { Role } from "@/schemas/identity/auth";
import { may, type Capability } from "@/schemas/permissions";
import { useTRPC } from "@/lib/trpc";
import { CommandPalette, openCommandPalette } from "./command-palette";
import { NavigationProgress } from "./navigation-progress";
import { NotificationBell } from "./notifications";
import { ConsoleToaster } from "./toasts";
import { usePageState } from "./use-page-state";

type NavLink = {
  href: string;
  label: string;
  icon: LucideIcon;
  needs?: Capability;
  badge?: "pendingReviews" | "pendingApprovals";
};

/** The console's areas in groups; a link that needs a capability shows only to members who have it. */
const GROUPS: { label: string; links: NavLink[] }[] = [
  {
    label: "Home",
    links: [
      { href: "/", label: "Overview", icon: House },
      { href: "/notifications", label: "Notifications", icon: Bell },
    ],
  },
  {
    label: "Provisioning",
    links: [
      { href: "/end-users", label: "End users", icon: UserCircle },
      { href: "/plans", label: "Tier plans", icon: Layers },
      { href: "/groups", label: "User groups", icon: UsersRound },
      { href: "/portals", label: "Portals", icon: LayoutGrid },
      { href: "/outbox", label: "Outbox", icon: Mail, needs: "settings" },
    ],
  },
  {
    label: "Knowledge",
    links: [
      { href: "/knowledge", label: "Knowledge", icon: BookOpen },
      { href: "/reviews", label: "Reviews", icon: ClipboardCheck, badge: "pendingReviews" },
    ],
  },
  {
    label: "Build",
    links: [
      { href: "/agents", label: "Agents", icon: Bot },
      { href: "/flows", label: "Flows", icon: Workflow },
      { href: "/apps", label: "Apps", icon: Blocks },
    ],
  },
  {
    label: "Run",
    links: [
      { href: "/chat", label: "Chat", icon: MessageSquare },
      { href: "/executions", label: "Executions", icon: History },
      { href: "/approvals", label: "Approvals", icon: Hand, badge: "pendingApprovals" },
    ],
  },
  {
    label: "Organization",
    links: [
      { href: "/keys", label: "API keys", icon: KeyRound },
      { href: "/mcp", label: "MCP", icon: Plug },
      { href: "/members", label: "Members", icon: Users },
      { href: "/audit-log", label: "Audit log", icon: ScrollText, needs: "settings" },
      { href: "/webhooks", label: "Webhooks", icon: Webhook, needs: "settings" },
      { href: "/directory", label: "Directory", icon: Building2, needs: "settings" },
      { href: "/security", label: "Security", icon: ShieldCheck, needs: "owners" },
      { href: "/settings/providers", label: "Model providers", icon: Cpu, needs: "settings" },
      { href: "/settings/prices", label: "Models and prices", icon: Coins, needs: "grant" },
      { href: "/settings/integrations", label: "Integrations", icon: Cable },
      { href: "/settings", label: "Settings", icon: Settings },
      { href: "/docs", label: "API docs", icon: FileCode },
    ],
  },
];

// The signed-in member's role, for what pages offer them; outside the console shell nothing is held back.
const RoleContext = createContext<Role>("owner");
// The signed-in member's email, for what pages word as theirs ("You").
const ViewerContext = createContext<string | null>(null);

/** Whether the signed-in member may (the permission table): pages hide or explain what the server would refuse. */
export function useMay(capability: Capability): boolean {
  return may(useContext(RoleContext), capability);
}

/** The signed-in member's email (null outside the console shell). */
export function useViewerEmail(): string | null {
  return useContext(ViewerContext);
}

function leadsTo(pathname: string, href: string): boolean {
  return pathname === href || (href !== "/" && pathname.startsWith(`${href}/`));
}

/** Only the most specific link is the current page: /settings/providers is not also Settings. */
function isCurrent(pathname: string, href: string): boolean {
  if (!leadsTo(pathname, href)) return false;
  return !GROUPS.some((group) =>
    group.links.some((link) => link.href.length > href.length && leadsTo(pathname, link.href)),
  );
}

/**
 * The console around every page: a skip link, the grouped navigation (a sidebar on a desk, a
 * Menu button below 900 px), who is signed in, and the toasts.
 */
export function ConsoleShell({ email, role, children }: { email: string; role: Role; children: ReactNode }) {
  const pathname = usePathname();
  const router = useRouter();
  const trpc = useTRPC();
  const waiting = useQuery(trpc.overview.waiting.queryOptions());
  const signOut = useMutation(trpc.auth.signOut.mutationOptions({ onSuccess: () => router.replace("/sign-in") }));
  // On a phone the links fold behind the Menu button; moving to another page folds them again.
  const [open, setOpen] = usePageState(false);
  const paletteLinks = GROUPS.flatMap((group) => group.links)
    .filter((link) => !link.needs || may(role, link.needs))
    .concat({ href: "/account", label: "Your account", icon: UserCircle });

  return (
    <RoleContext value={role}>
      <ViewerContext value={email}>
        <NavigationProgress />
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <div className="shell">
          <header className={open ? "sidebar open" : "sidebar"}>
            <div className="sidebar-top">
              <Link href="/" className="brand">
                <Sparkles size={20} aria-hidden className="icon" />
                Atrium
              </Link>
              <div className="shell-actions">
                <button
                  type="button"
                  className="shell-icon-button"
                  onClick={openCommandPalette}
                  aria-keyshortcuts="Control+K Meta+K"
                >
                  <Search size={18} aria-hidden className="icon" />
                  <span className="visually-hidden">Search (Ctrl+K)</span>
                </button>
                <NotificationBell />
              </div>
              <button
                type="button"
                className="menu-toggle"
                aria-expanded={open}
                aria-controls="console-links"
                onClick={() => setOpen(!open)}
              >
                {open ? <X size={18} aria-hidden className="icon" /> : <Menu size={18} aria-hidden className="icon" />}
                Menu
              </button>
            </div>
            <div id="console-links" className="sidebar-links">
              <nav aria-label="Console">
                {GROUPS.map((group) => {
                  const links = group.links.filter((link) => !link.needs || may(role, link.needs));
                  return (
                    <div key={group.label}>
                      <h2>{group.label}</h2>
                      <ul>
                        {links.map((link) => {
                          const count = link.badge ? waiting.data?.[link.badge] : undefined;
                          return (
                            <li key={link.href}>
                              <Link href={link.href} aria-current={isCurrent(pathname, link.href) ? "page" : undefined}>
                                <link.icon size={17} aria-hidden className="icon" />
                                {link.label}
                                {!!count && (
                                  <span className="nav-count">
                                    {count}
                                    <span className="visually-hidden"> pending</span>
                                  </span>
                                )}
                              </Link>
                            </li>
                          );
                        })}
                      </ul>
                    </div>
                  );
                })}
              </nav>
              <div className="who">
                <span>{email}</span>
                <span className="role">{role}</span>
                <Link href="/account">Your account</Link>
                <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
                  <LogOut size={16} aria-hidden className="icon" />
                  Sign out
                </button>
              </div>
            </div>
          </header>
          <main id="main" tabIndex={-1}>
            {children}
          </main>
        </div>
        <CommandPalette links={paletteLinks} />
        <ConsoleToaster />
      </ViewerContext>
    </RoleContext>
  );
}
