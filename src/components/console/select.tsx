"use client";
import type { ComponentProps } from "react";

export interface SelectOption<T extends string = string> {
  value: T;
  /** Text only: an option shows no markup. */
  label: string;
  disabled?: boolean;
}
/** Options under a heading (an `<optgroup>`): the models of one provider. */
export interface SelectGroup<T extends string = string> {
  group: string;
  options: readonly SelectOption<T>[];
}

function Options<T extends string>({ options }: { options: readonly SelectOption<T>[] }) {
  return options.map((option) => (
    <option key={option.value} value={option.value} disabled={option.disabled}>
      {option.label}
    </option>
  ));
}

/**
 * A native select over an array of options (and groups of options). Inside a `FormField` it
 * takes the field's label, hint and error (the field hands it id and aria-describedby); alone it
 * needs an `aria-label`. It takes a form's `register(name)` (its ref reaches the select). `placeholder` is a first option with the empty value ("Any plan",
 * "Choose…"); `onValueChange` hands over the chosen value, typed as the options' values.
 */
export function Select<T extends string = string>({
  options,
  placeholder,
  onValueChange,
  onChange,
  ...rest
}: Omit<ComponentProps<"select">, "children"> & {
  options: readonly (SelectOption<T> | SelectGroup<T>)[];
  placeholder?: string;
  onValueChange?: (value: T) => void;
}) {
  return (
    <select
      {...rest}
      onChange={(event) => {
        onChange?.(event);
        onValueChange?.(event.target.value as T);
      }}
    >
      {placeholder !== undefined && <option value="">{placeholder}</option>}
      {options.map((item) =>
        "group" in item ? (
          <optgroup key={`group:${item.group}`} label={item.group}>
            <Options options={item.options} />
          </optgroup>
        ) : (
          <Options key={item.value} options={[item]} />
        ),
      )}
    </select>
  );
}
