-- AlterTable
ALTER TABLE "sso_connections" ADD COLUMN     "protocol" TEXT NOT NULL DEFAULT 'oidc',
ADD COLUMN     "saml_certificates" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "saml_metadata_url" TEXT,
ADD COLUMN     "saml_sso_url" TEXT,
ALTER COLUMN "client_id" DROP NOT NULL,
ALTER COLUMN "client_secret_ciphertext" DROP NOT NULL;

-- AlterTable
ALTER TABLE "sso_logins" ADD COLUMN     "member_id" UUID,
ADD COLUMN     "protocol" TEXT NOT NULL DEFAULT 'oidc',
ALTER COLUMN "code_verifier" DROP NOT NULL,
ALTER COLUMN "nonce" DROP NOT NULL;

-- CreateTable
CREATE TABLE "sso_tests" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "member_id" UUID NOT NULL,
    "protocol" TEXT NOT NULL,
    "ok" BOOLEAN NOT NULL,
    "message" TEXT NOT NULL,
    "sent" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sso_tests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "sso_tests_organization_id_created_at_idx" ON "sso_tests"("organization_id", "created_at");

-- AddForeignKey
ALTER TABLE "sso_tests" ADD CONSTRAINT "sso_tests_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
