import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALL_EVENT_DEFINITIONS } from '../events/definitions.js';
import { envelopeSchemas, envelopeTypeOf } from '../src/app/envelopes/registry.js';
import * as foundation from '../src/app/envelopes/foundation.js';
import * as coordination from '../src/app/envelopes/coordination.js';
import * as integrations from '../src/app/envelopes/integrations.js';
import * as serve from '../src/app/envelopes/serve.js';
import * as tasks from '../src/app/envelopes/tasks.js';
import * as workUnits from '../src/app/envelopes/work-units.js';
import * as replay from '../src/app/envelopes/replay.js';
import * as flow from '../projections/flow/flow-envelopes.js';
import { jsonSchemaFiles } from '../src/cli/json-schemas.js';
import { envelopeProblem } from './helpers/envelope-schemas.js';
import { runBaton } from './helpers/cli.js';

/**
 * a JSON Schema for every envelope and event type, generated from the zod schemas into
 * schemas/ (a build output: `npm run schemas`, run by `npm run build`), current, and shipped. test/helpers/cli.ts validates
 * every envelope every CLI test sees against them; this file proves the checker bites.
 */
const root = fileURLToPath(new URL('../schemas/', import.meta.url));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [relative(root, join(dir, e.name))]));
}

describe('published JSON Schemas', () => {
  it('are current: schemas/ holds exactly what the generator writes (run npm run schemas)', () => {
    const generated = jsonSchemaFiles();
    expect(filesUnder(root).sort()).toEqual([...generated.keys()].sort());
    for (const [path, text] of generated) expect(readFileSync(join(root, path), 'utf8'), path).toBe(text);
  });

  it('cover every envelope schema the CLI declares and every event type', () => {
    const declared = [foundation, coordination, integrations, serve, tasks, workUnits, replay, flow]
      .flatMap((m) => Object.entries(m))
      .filter(([name, value]) => name.endsWith('Envelope') && envelopeTypeOf(value) !== undefined)
      .map(([, value]) => envelopeTypeOf(value)!);
    const registered = [...envelopeSchemas().keys()];
    expect(registered).toEqual(expect.arrayContaining([...new Set(declared), 'error']));
    const index = JSON.parse(readFileSync(join(root, 'index.json'), 'utf8')) as { envelopes: Record<string, string>; events: Record<string, string> };
    expect(Object.keys(index.envelopes).sort()).toEqual([...registered].sort());
    expect(Object.keys(index.events).sort()).toEqual(ALL_EVENT_DEFINITIONS.map((d) => d.type).sort());
  });

  it('the checker accepts a real envelope and refuses a wrong one, an unknown type, and a bad stored event', async () => {
    const r = await runBaton(['--json', 'log', 'stats', '--bogus'], { env: { BATON_NOW: '2026-11-22T09:00:00Z' } });
    const error = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(envelopeProblem(error)).toBeUndefined();
    expect(envelopeProblem({ ...error, code: 'lower case' })).toMatch(/does not match schemas\/envelopes\/error.schema.json/);
    expect(envelopeProblem({ ...error, extra: 1 })).toMatch(/does not match/);
    expect(envelopeProblem({ v: 1, type: 'no_such_envelope', generated_at: '2026-11-22T09:00:00.000Z' })).toMatch(/has no published schema/);
    expect(envelopeProblem({ v: 1, type: 'note.recorded', seq: 0, hash: 'x' })).toMatch(/stored-event.schema.json/);
  });

  it('snake_case keys in every envelope but the orchestration ones, whose wizard fields tasks.md §10.3 fixes', () => {
    const keys = (node: unknown): string[] => {
      if (Array.isArray(node)) return node.flatMap(keys);
      if (node === null || typeof node !== 'object') return [];
      const record = node as Record<string, unknown>;
      const own = record['properties'] !== undefined ? Object.keys(record['properties'] as object) : [];
      return [...own, ...Object.values(record).flatMap(keys)];
    };
    const index = JSON.parse(readFileSync(join(root, 'index.json'), 'utf8')) as { envelopes: Record<string, string> };
    const offenders = Object.entries(index.envelopes)
      .filter(([type]) => !type.startsWith('orchestration_'))
      .flatMap(([type, file]) =>
        keys(JSON.parse(readFileSync(join(root, file), 'utf8')))
          .filter((k) => !/^[a-z0-9_@]+$/.test(k))
          .map((k) => `${type}.${k}`),
      );
    expect(offenders).toEqual([]);
  });

  it('an event type schema checks its data: note.recorded needs its text', () => {
    const schema = JSON.parse(readFileSync(join(root, 'events', 'note.recorded.schema.json'), 'utf8')) as { properties: { data: { required?: string[] } } };
    expect(schema.properties.data.required).toContain('text');
  });
});
