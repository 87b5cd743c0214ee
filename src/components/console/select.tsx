"use client";
import type { ReactNode, SelectHTMLAttributes } from "react";

export interface SelectOption<T extends string = string> {
  value: T;
  label: ReactNode;
  disabled?: boolean;
}

/**
 * A native select over an array of options. Inside a `FormField` it takes the field's label,
 * hint and error (the field hands it id and aria-describedby); alone it needs an `aria-label`.
 * `placeholder` is a first option with the empty value ("Any plan", "Choose…");
 * `onValueChange` hands over the chosen value, typed as the options' values.
 */
export function Select<T extends string = string>({
  options,
  placeholder,
  onValueChange,
  onChange,
  children,
  ...rest
}: SelectHTMLAttributes<HTMLSelectElement> & {
  options: readonly SelectOption<T>[];
  placeholder?: string;
  onValueChange?: (value: T) => void;
  /** Options after the listed ones (an optgroup); most selects need none. */
  children?: ReactNode;
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
      {options.map((option) => (
        <option key={option.value} value={option.value} disabled={option.disabled}>
          {option.label}
        </option>
      ))}
      {children}
    </select>
  );
}
