// How the protocol's modules check a message and put one together, knowing nothing of any message:
// a check is a function (value, path) that throws a ProtocolError naming the dotted path of the
// field it refuses, and checks of objects, arrays, optional fields and tagged unions are made of
// smaller ones. `compose` is the one place a message or operation leaves out its empty fields.

/** A message that breaks the document: `field` is the dotted path of the offending field. */
export class ProtocolError extends Error {
  constructor(message, field) {
    super(message);
    this.name = "ProtocolError";
    this.field = field;
  }
}

// MARK: Failing

/** A path as a sentence shows it. */
export const shown = (path) => `"${path || "message"}"`;

/** Throws a ProtocolError: the field at `path` must be `expected`, and was `value`. */
export function fail(path, expected, value) {
  const got = value === undefined ? "nothing" : JSON.stringify(value)?.slice(0, 60);
  throw new ProtocolError(`${shown(path)} must be ${expected}, got ${got}.`, path);
}

/** The path of a field (or an array's element) under `path`. */
export const join = (path, key) => (path ? `${path}.${key}` : String(key));

/** Absent or null: an optional field left out. */
export const absent = (value) => value === undefined || value === null;

// MARK: Scalars

export function string(value, path) {
  if (typeof value !== "string") fail(path, "a string", value);
}

export function boolean(value, path) {
  if (typeof value !== "boolean") fail(path, "true or false", value);
}

export function number(value, path) {
  if (typeof value !== "number" || !Number.isFinite(value)) fail(path, "a number", value);
}

export function integer(value, path) {
  if (!Number.isInteger(value)) fail(path, "an integer", value);
}

export function count(value, path) {
  if (!Number.isInteger(value) || value < 0) fail(path, "an integer of at least 0", value);
}

/** An integer from `min` to `max`. */
export const integerIn = (min, max) => (value, path) => {
  integer(value, path);
  if (value < min || value > max) fail(path, `an integer from ${min} to ${max}`, value);
};

export const oneOf = (values) => (value, path) => {
  if (!values.includes(value)) fail(path, `one of ${values.join(", ")}`, value);
};

// MARK: Made of smaller checks

export const arrayOf = (check) => (value, path) => {
  if (!Array.isArray(value)) fail(path, "an array", value);
  value.forEach((element, n) => check(element, join(path, n)));
};

/** An array of at most `max` elements, each passing `check`. */
export const boundedArrayOf = (check, max, what) => (value, path) => {
  arrayOf(check)(value, path);
  if (value.length > max) fail(path, `at most ${max} ${what}`, value.length);
};

/** An object with these fields (each a check; wrap optional ones in `opt`); others are ignored. */
export const object = (fields) => (value, path) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(path, "an object", value);
  for (const [key, check] of Object.entries(fields)) {
    const field = join(path, key);
    if (value[key] === undefined && !check.isOptional) throw new ProtocolError(`The field ${shown(field)} is required.`, field);
    check(value[key], field);
  }
};

/** An optional field: absent or null means left out. */
export function opt(check) {
  const wrapped = (value, path) => {
    if (!absent(value)) check(value, path);
  };
  wrapped.isOptional = true;
  return wrapped;
}

/** For recursive types. */
export const lazy = (make) => (value, path) => make()(value, path);

/** A field list per tag (`{type: fields}`) as an object check per tag. */
const objectChecks = (fieldsByTag) =>
  Object.fromEntries(Object.entries(fieldsByTag).map(([tag, fields]) => [tag, object(fields)]));

/** A tagged union: `kinds` maps each tag to its fields; `rules` adds whole-value checks for some tags. */
export const tagged = (tag, kinds, label, rules = {}) => {
  const checks = objectChecks(kinds);
  return (value, path) => {
    object({ [tag]: string })(value, path);
    const check = checks[value[tag]];
    if (!check) fail(join(path, tag), `a known ${label} (${Object.keys(kinds).join(", ")})`, value[tag]);
    check(value, path);
    rules[value[tag]]?.(value, path);
  };
};

/**
 * A check of whole messages: `{type}` names one of `fieldsByType` and the message has its fields;
 * `direction` ("client", "server") names the side in the error. Returns the message.
 */
export function messageCheck(fieldsByType, direction) {
  const checks = objectChecks(fieldsByType);
  return (message) => {
    object({ type: string })(message, "");
    const checkType = checks[message.type];
    if (!checkType) throw new ProtocolError(`"${message.type}" is not a ${direction} message type.`, "type");
    checkType(message, "");
    return message;
  };
}

// MARK: Composing

/** A `false` a composed message or operation keeps (`compose` leaves a plain `false` out). */
export const CLEARED = Symbol("false");

/** `{[tag]: name}` and the fields that are not undefined, null or false (CLEARED is kept as false). */
export function compose(tag, name, fields) {
  const composed = { [tag]: name };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null || value === false) continue;
    composed[key] = value === CLEARED ? false : value;
  }
  return composed;
}
