// The organization's outbox: mail (sign-in codes) kept when no SMTP server is configured.
import { ListMailInput, ListMailOutput } from "@/schemas/portal/portal";
import { listMail } from "@/server/services/org/mail";
import { router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const mailRouter = router({
  list: memberCalls.queryWith(listMail, ListMailInput, ListMailOutput),
});
