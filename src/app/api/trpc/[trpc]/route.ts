import { consoleTrpcRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export { consoleTrpcRoute as GET, consoleTrpcRoute as POST };
