import fc from 'fast-check';

/**
 * JSON-like payloads for the canonical-form and hashing properties: null, booleans, unicode
 * strings, doubles, integers, -0, nested arrays, and objects with unsorted keys and undefined
 * holes. `specialStrings` are mixed in as one more kind of string (escapes, surrogates…);
 * `specialKeys` are the keys drawn beside short random ones (integer-like keys, lookalikes of
 * envelope fields…).
 */
export function jsonPayloadArbitrary(options: { specialStrings?: readonly string[]; specialKeys: readonly string[] }): fc.Arbitrary<unknown> {
  const { specialStrings, specialKeys } = options;
  return fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.string({ unit: 'grapheme' }),
      ...(specialStrings !== undefined ? [fc.constantFrom(...specialStrings)] : []),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.constant(-0),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom(...specialKeys)), fc.option(tie('value'), { nil: undefined }), { maxKeys: 5 }),
    ),
  })).value;
}
