"use client";
// The role select, saying in one line what the chosen role may do (the permission table's
// summaries, src/schemas/permissions.ts), with every role's line one click away.
import { FormField, Select } from "@/components/console";
import { ROLES, type Role } from "@/schemas/identity/auth";
import { ROLE_NAMES, ROLE_SUMMARIES } from "@/schemas/permissions";

export function RoleSummaries() {
  return (
    <details className="role-summaries">
      <summary>What each role may do</summary>
      <ul>
        {ROLES.map((role) => (
          <li key={role}>
            <strong>{ROLE_NAMES[role]}</strong>: {ROLE_SUMMARIES[role]}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** A labelled role select with the chosen role's summary beneath it. */
export function RolePicker({
  value,
  onChange,
  label = "Role",
}: {
  value: Role;
  onChange: (role: Role) => void;
  label?: string;
}) {
  return (
    <FormField label={label} hint={ROLE_SUMMARIES[value]}>
      <Select
        value={value}
        onChange={(e) => onChange(e.target.value as Role)}
        options={ROLES.map((role) => ({ value: role, label: ROLE_NAMES[role] }))}
      />
    </FormField>
  );
}
