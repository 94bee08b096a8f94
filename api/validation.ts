import { z } from 'zod';
import { errors, type FieldErrors, fromZodError } from './errors.ts';
import { UNKNOWN_FIELD, unknownFields } from './strict-inputs.ts';

function describeType(expected: string): string {
  switch (expected) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'int':
      return 'an integer';
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'a list';
    case 'object':
      return 'an object';
    default:
      return `of type ${expected}`;
  }
}

const unit = (origin: string, count: number | bigint) =>
  origin === 'string' ? ` character${count === 1 ? '' : 's'}` : origin === 'array' || origin === 'set' ? ` item${count === 1 ? '' : 's'}` : '';

/**
 * Readable messages for every validation failure, the same on every route. Installed once at
 * start-up (zod's configuration is global).
 */
export function installValidationMessages(): void {
  z.config({
    customError: (issue) => {
      switch (issue.code) {
        case 'invalid_type':
          return issue.input === undefined ? 'This field is required.' : `Must be ${describeType(issue.expected)}.`;
        case 'too_small': {
          if (issue.origin === 'string' && issue.minimum === 1) return 'This field is required.';
          const bound = issue.inclusive === false ? 'more than' : 'at least';
          return `Must be ${bound} ${issue.minimum}${unit(issue.origin, issue.minimum as number)}.`;
        }
        case 'too_big': {
          const bound = issue.inclusive === false ? 'less than' : 'at most';
          return `Must be ${bound} ${issue.maximum}${unit(issue.origin, issue.maximum as number)}.`;
        }
        case 'invalid_format':
          if (issue.format === 'email') return 'Must be a valid e-mail address.';
          if (issue.format === 'uuid') return 'Must be a valid UUID.';
          if (issue.format === 'datetime' || issue.format === 'date') return 'Must be a valid ISO-8601 date.';
          return `Must be a valid ${issue.format}.`;
        case 'invalid_value':
          return `Must be one of: ${issue.values.map(String).join(', ')}.`;
        case 'not_multiple_of':
          return `Must be a multiple of ${issue.divisor}.`;
        default:
          return undefined;
      }
    },
  });
}

/** Headers arrive lower-cased; a failing one is named as it is documented (`Idempotency-Key`). */
export const documentedHeaderName = (key: string) => key.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());

type ValidationResult = ({ success: true } | { success: false; error: z.ZodError }) & { target?: string };

/**
 * The hook routes validate with: any failure becomes the CONTRACT's 422. Given the schema the input
 * was checked against (a body's or a query's: api/router.ts) and the input as sent, a field or
 * parameter the schema does not know is one more failure on its dotted path (api/strict-inputs.ts),
 * answered with the others.
 */
export const strictValidationHook = (strictAgainst?: z.core.$ZodType) => (result: ValidationResult, sent?: unknown): void => {
  const unknown = strictAgainst ? unknownFields(strictAgainst, sent) : [];
  if (result.success && unknown.length === 0) return;
  // A strict object's own complaint about extra keys is said once, as an unknown field on each.
  const issues = result.success ? [] : result.error.issues.filter((issue) => !(strictAgainst && issue.code === 'unrecognized_keys'));
  const failure = fromZodError(new z.ZodError(issues), result.target === 'header' ? documentedHeaderName : undefined);
  // Keyed by what the client sent, `constructor` and `__proto__` included: a map without a prototype takes them as keys.
  const fieldErrors: FieldErrors = Object.assign(Object.create(null), failure.errors);
  for (const path of unknown) (fieldErrors[path] ??= []).push(UNKNOWN_FIELD);
  throw errors.invalid(fieldErrors);
};

/** The hook of an input read as it is (path parameters, headers). */
export const validationHook = strictValidationHook();
