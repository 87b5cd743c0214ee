import type { Metadata } from "next";
import type { ReactNode } from "react";
import { documentLanguage } from "@/components/portal/i18n/server";
import { Providers } from "@/lib/trpc";
import "./theme.css";
import "./globals.css";

// No title here: console pages name themselves through PageHeader, the portal and docs in their own layouts.
export const metadata: Metadata = { description: "Serve AI agents to your organization's users" };

// Every page renders per request, so Next.js can put the nonce of the middleware's
// Content-Security-Policy on its scripts (a prerendered page would carry none).
export const dynamic = "force-dynamic";

export default async function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang={await documentLanguage()}>
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
