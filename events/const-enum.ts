/** A const object whose keys are its values (`{ queued: 'queued', … }`): the project's enum form. */
export type ConstEnum<K extends string> = { readonly [P in K]: P };

/** The const object of these values, in their order (so `Object.values` keeps the spec's order). */
export function constEnum<const K extends string>(values: readonly K[]): ConstEnum<K> {
  return Object.fromEntries(values.map((v) => [v, v])) as ConstEnum<K>;
}
