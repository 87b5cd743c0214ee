// The portal chat, inside the embed frame.
export { default, generateMetadata } from "@/app/p/[portal]/apps/[appId]/page";
