import { ValidateBy } from 'class-validator';

/**
 * A body or query field checked by one function that names its problem (undefined when the value is fine), so
 * that each field yields exactly one message: `missing` when it is absent, otherwise what is wrong with it.
 */
export function CheckedField(
  missing: string,
  problem: (value: unknown) => string | undefined,
): PropertyDecorator {
  return ValidateBy({
    name: 'checkedField',
    validator: {
      validate: (value: unknown) => value !== undefined && value !== null && problem(value) === undefined,
      defaultMessage: (args) =>
        args?.value === undefined || args.value === null ? missing : (problem(args.value) ?? missing),
    },
  });
}

/** The problem with a field that must be non-blank text. */
export function textProblem(field: string): (value: unknown) => string | undefined {
  return (value) =>
    typeof value !== 'string'
      ? `PresQT Error: '${field}' must be a string.`
      : /\S/.test(value)
        ? undefined
        : `PresQT Error: '${field}' can't be blank.`;
}

/** The problem with a list of keywords (transfers and keyword uploads). */
export function keywordListProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return "PresQT Error: 'keywords' must be in list format.";
  return value.every((keyword) => typeof keyword === 'string')
    ? undefined
    : "PresQT Error: 'keywords' must be a list of strings.";
}
