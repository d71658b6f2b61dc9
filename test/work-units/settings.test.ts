import { describe, expect, it } from 'vitest';
import { DefinitionFields } from '../../events/work-units/definition.js';
import { DEFINITION_FIELD_NAMES } from '../../events/work-units/terms.js';
import { WorkUnitsConfigSchema } from '../../projections/work-units/settings-schema.js';
import { DEFAULT_WORK_UNITS_CONFIG } from '../../projections/work-units/settings.js';

/** What the fold and the views read without zod, written out: it must be what the schemas say. */
describe('work-unit settings', () => {
  it('the defaults are the schema parse of an empty file, key for key and in order', () => {
    const parsed = WorkUnitsConfigSchema.parse({});
    expect(DEFAULT_WORK_UNITS_CONFIG).toStrictEqual(parsed);
    expect(JSON.stringify(DEFAULT_WORK_UNITS_CONFIG)).toBe(JSON.stringify(parsed));
  });

  it("the zod-free list of definition fields is the schema's, in its order", () => {
    expect([...DEFINITION_FIELD_NAMES]).toEqual(Object.keys(DefinitionFields.shape));
  });
});
