import { unknownApiRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export {
  unknownApiRoute as GET,
  unknownApiRoute as POST,
  unknownApiRoute as PUT,
  unknownApiRoute as PATCH,
  unknownApiRoute as DELETE,
};
