-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "password_sign_in" BOOLEAN NOT NULL DEFAULT true;
