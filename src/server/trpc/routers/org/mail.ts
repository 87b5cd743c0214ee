// The organization's outbox: mail (sign-in codes) kept when no SMTP server is configured.
import { ListMailInput, ListMailOutput } from "@/schemas/portal/portal";
import { listMail } from "@/server/services/org/mail";
import { memberProcedure, router } from "../../init";

export const mailRouter = router({
  list: memberProcedure(listMail.requirement)
    .input(ListMailInput)
    .output(ListMailOutput)
    .query(({ ctx, input }) => listMail(ctx.db, ctx.actor, input)),
});
