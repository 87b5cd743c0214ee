"use client";
import { useId, type ReactNode } from "react";

export interface Choice<T extends string = string> {
  value: T;
  /** The choice's name, beside its control. */
  label: ReactNode;
  /** One sentence that explains the choice, under its name. */
  hint?: ReactNode;
  disabled?: boolean;
}

interface GroupProps<T extends string> {
  /** The group's name: the fieldset's legend. */
  legend: ReactNode;
  /** `muted` for a quiet legend above a row of plain choices. */
  legendClassName?: string;
  choices: readonly Choice<T>[];
  /** The class of the box around the choices: `row` side by side; stacked by default. */
  listClassName?: string;
  disabled?: boolean;
  /** Content between the legend and the choices (a loading line, an "All" switch). */
  lead?: ReactNode;
  /** More content inside the fieldset, after the choices (a LoadMore). */
  children?: ReactNode;
  testId?: string;
  /** The fieldset's class, when a page lays the group out its own way. */
  className?: string;
}

function ChoiceFieldset<T extends string>({
  legend,
  legendClassName,
  choices,
  listClassName = "choice-stack",
  disabled,
  lead,
  children,
  testId,
  className,
  control,
}: GroupProps<T> & { control: (choice: Choice<T>) => ReactNode }) {
  // Choices that explain themselves take the `choices` look (docs/console.md "Console kit").
  const explained = choices.some((choice) => choice.hint !== undefined);
  return (
    <fieldset className={className ?? (explained ? "bare choices" : "bare")} disabled={disabled} data-testid={testId}>
      <legend className={legendClassName}>{legend}</legend>
      {lead}
      <div className={listClassName}>
        {choices.map((choice) => (
          <label key={choice.value} className={explained ? "inline choice" : "inline"}>
            {control(choice)}
            {explained ? (
              <span>
                {choice.label}
                {choice.hint !== undefined && <span className="muted">{choice.hint}</span>}
              </span>
            ) : (
              choice.label
            )}
          </label>
        ))}
      </div>
      {children}
    </fieldset>
  );
}

/**
 * Checkboxes under one legend, each a native checkbox in its label (Tab and Space as
 * everywhere). `value` is the checked values, in the choices' order when changed.
 */
export function CheckboxGroup<T extends string = string>({
  value,
  onChange,
  ...group
}: GroupProps<T> & { value: readonly T[]; onChange: (value: T[]) => void }) {
  // Ticking appends and unticking removes, so values the choices do not list (a flow on a page
  // not loaded yet) are kept.
  const toggle = (choice: T, checked: boolean) =>
    onChange(checked ? [...value, choice] : value.filter((v) => v !== choice));
  return (
    <ChoiceFieldset
      {...group}
      control={(choice) => (
        <input
          type="checkbox"
          value={choice.value}
          checked={value.includes(choice.value)}
          disabled={choice.disabled}
          onChange={(event) => toggle(choice.value, event.target.checked)}
        />
      )}
    />
  );
}

/**
 * Radios under one legend, one name for the group so the arrow keys move between them as the
 * browser does for native radios.
 */
export function RadioGroup<T extends string = string>({
  value,
  onChange,
  name,
  ...group
}: GroupProps<T> & { value: T | null; onChange: (value: T) => void; name?: string }) {
  const generated = useId();
  return (
    <ChoiceFieldset
      {...group}
      control={(choice) => (
        <input
          type="radio"
          name={name ?? generated}
          value={choice.value}
          checked={value === choice.value}
          disabled={choice.disabled}
          onChange={() => onChange(choice.value)}
        />
      )}
    />
  );
}
