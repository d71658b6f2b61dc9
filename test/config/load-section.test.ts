import { describe, expect, it } from 'vitest';
import { loadConfigSection } from '../../src/config/load-section.js';
import type { ConfigSection } from '../../src/config/section.js';
import { WORK_UNITS_CONFIG_SECTION } from '../../src/config/work-units.js';
import { BatonError } from '../../src/errors.js';

/** The work-unit section with a schema loader that counts its calls. */
function counted(): { section: ConfigSection<typeof WORK_UNITS_CONFIG_SECTION.defaults>; loads: () => number } {
  let loads = 0;
  const section = {
    ...WORK_UNITS_CONFIG_SECTION,
    schema: () => {
      loads++;
      return WORK_UNITS_CONFIG_SECTION.schema();
    },
  };
  return { section, loads: () => loads };
}

describe('one config loader (src/config/load-section.ts)', () => {
  it('gives the defaults without a file, and reads a plain valid file without loading the zod schema', async () => {
    const { section, loads } = counted();
    expect(await loadConfigSection(undefined, section)).toBe(WORK_UNITS_CONFIG_SECTION.defaults);
    const read = await loadConfigSection('orchestration:\n  stall_threshold: 90m\nlanes:\n  Core:\n    wip_limit: 3\n', section);
    expect(read.orchestration.stall_threshold).toBe('90m');
    expect(read.lanes['Core']).toEqual({ wip_limit: 3 });
    expect(loads()).toBe(0);
  });

  it('reads YAML the plain reader is unsure of with the schema', async () => {
    const { section, loads } = counted();
    const read = await loadConfigSection('lanes: {Core: {wip_limit: 2}}\n', section);
    expect(read.lanes['Core']).toEqual({ wip_limit: 2 });
    expect(loads()).toBe(1);
  });

  it('fails with INVALID_INPUT naming the field, worded by the schema', async () => {
    const { section } = counted();
    const error = await loadConfigSection('lane_defaults:\n  wip_limit: 0\n', section).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatonError);
    expect((error as BatonError).code).toBe('INVALID_INPUT');
    expect((error as BatonError).message).toBe('config.yaml.lane_defaults.wip_limit: must be at least 1');
  });

  it('fails with INVALID_INPUT naming config.yaml on YAML that does not parse', async () => {
    const error = await loadConfigSection('lanes: [\n', WORK_UNITS_CONFIG_SECTION).catch((e: unknown) => e);
    expect((error as BatonError).code).toBe('INVALID_INPUT');
    expect((error as BatonError).message).toMatch(/^config\.yaml: is not valid YAML \(/);
  });
});
