// An operation's input, typed in one place: its steps read the request as its schema says, and the
// worker checks a stored request against that schema once, where the item's job starts (a payload
// is checked when it is run, not trusted because a plan once wrote it).
import type { Static, TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import type { Outcome } from './finish.ts';
import type { ClaimedItem } from './sql/index.ts';
import type { Operation } from './types.ts';

/** An operation over the requests `input` describes: its steps are given them typed by that schema. */
export function operationOf<S extends TSchema>(
  input: S,
  steps: Omit<Operation<Static<S>>, 'input'>,
): Operation<Static<S>> {
  return { input, ...steps };
}

// Each input schema compiled once (a compiled check is many times quicker than an interpreted one).
const validators = new WeakMap<TSchema, Validator>();

function validatorOf(schema: TSchema): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema);
    validators.set(schema, validator);
  }
  return validator;
}

/**
 * The failure of an item whose stored request its operation cannot read (it does not match the
 * operation's input schema: a plan and its operation disagree, or the row was written otherwise),
 * refunded like any failure; undefined when the request matches.
 */
export function requestMismatch(operation: Operation, item: ClaimedItem): Outcome | undefined {
  const validator = validatorOf(operation.input);
  if (validator.Check(item.generation_input)) return undefined;
  const first = validator.Errors(item.generation_input)[0];
  return {
    ok: false,
    error:
      `The request stored for this item does not match operation ${item.operation} ` +
      `(at ${first?.instancePath || '/'}: ${first?.message}); its credits were refunded`,
    errorKind: 'internal',
  };
}
