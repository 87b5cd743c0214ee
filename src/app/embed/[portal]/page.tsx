// The portal's pages, inside the embed frame (its layout signs the end user in).
export { default, generateMetadata } from "@/app/p/[portal]/page";
