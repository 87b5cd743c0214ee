// Console only (no REST path): the command palette's search by name.
import { FindByNameInput, FindByNameOutput } from "@/schemas/find";
import { findByName } from "@/server/services/org/name-search";
import { router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const findRouter = router({
  byName: memberCalls.queryWith(findByName, FindByNameInput, FindByNameOutput),
});
