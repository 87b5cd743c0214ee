-- AlterTable
ALTER TABLE "sso_connections" ADD COLUMN     "saml_metadata_error" TEXT,
ADD COLUMN     "saml_metadata_failed_at" TIMESTAMPTZ(3),
ADD COLUMN     "saml_metadata_read_at" TIMESTAMPTZ(3);
