import type { z } from 'zod';
import { DeepDiveStatusEnvelope, FlowMergeEnvelope, FlowStatusEnvelope } from '../../../projections/flow/flow-envelopes.js';
import * as audit from './audit.js';
import * as foundation from './foundation.js';
import * as coordination from './coordination.js';
import * as guard from './guard.js';
import * as integrations from './integrations.js';
import * as listing from './listing.js';
import * as lumenflow from './lumenflow.js';
import * as serve from './serve.js';
import * as tasks from './tasks.js';
import * as workUnits from './work-units.js';
import * as replay from './replay.js';
import { ErrorEnvelope } from './error.js';

/**
 * Every JSON envelope the CLI prints, by its `type`: the source of the published JSON Schemas
 * (json-schemas.ts) and of the test that every envelope a test sees validates. A type printed by two
 * commands with different shapes (`orchestration_session`: `session start` and `session <id>`) has
 * both. Loads every envelope module: for the schema generator and tests, never a command.
 */
const MODULES: readonly Record<string, unknown>[] = [
  audit,
  foundation,
  coordination,
  guard,
  integrations,
  listing,
  lumenflow,
  serve,
  tasks,
  workUnits,
  replay,
  { FlowStatusEnvelope, FlowMergeEnvelope, DeepDiveStatusEnvelope, ErrorEnvelope },
];

/** The `type` literal of an envelope schema, or undefined for a part (a Task shape) or the generic view. */
export function envelopeTypeOf(schema: unknown): string | undefined {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  const type = shape?.['type'] as { def?: { type?: string; values?: unknown[] } } | undefined;
  if (type?.def?.type !== 'literal' || type.def.values?.length !== 1) return undefined;
  const value = type.def.values[0];
  return typeof value === 'string' && shape?.['v'] !== undefined ? value : undefined;
}

export function envelopeSchemas(): Map<string, z.ZodType[]> {
  const byType = new Map<string, z.ZodType[]>();
  for (const module of MODULES) {
    for (const [name, value] of Object.entries(module)) {
      const type = envelopeTypeOf(value);
      if (type === undefined || !name.endsWith('Envelope')) continue;
      byType.set(type, [...(byType.get(type) ?? []), value as z.ZodType]);
    }
  }
  return new Map([...byType].sort(([a], [b]) => a.localeCompare(b)));
}
