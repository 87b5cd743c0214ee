// The end user's conversations, inside the embed frame.
export { default, generateMetadata } from "@/app/p/[portal]/conversations/page";
