import { z } from 'zod';
import { defineEvent } from '../catalog.js';
import { DEEP_DIVE_SCOPES, DEEP_DIVE_SECTIONS, MAX_SECTION_LENGTH } from './vocabulary.js';

/** The `deep_dive/<deep_dive_id>` events of phase-gates.md §8. */
export const DEEP_DIVE_ID_PATTERN = /^deepdive_[A-Za-z0-9_-]+$/;
export const deepDiveId = z.string().regex(DEEP_DIVE_ID_PATTERN, 'must look like deepdive_<id>');

/** A relative POSIX path inside the workspace with no `..` segment (D3). */
export const focusPath = z
  .string()
  .min(1)
  .max(1000)
  .refine(
    // eslint-disable-next-line no-control-regex -- a control character is what it refuses
    (p) => !p.startsWith('/') && !p.split('/').includes('..') && !p.includes('\\') && !/[\u0000-\u001f]/.test(p),
    'must be a relative path inside the workspace, without ".."',
  );

export const DeepDiveInitializedData = z.strictObject({
  deep_dive_id: deepDiveId,
  scope: z.enum(DEEP_DIVE_SCOPES),
  focus_path: focusPath.nullable(),
  agent_count: z.number().int().min(1),
  refresh: z.boolean(),
  backup_path: z.string().nullable(),
});
export type DeepDiveInitializedData = z.infer<typeof DeepDiveInitializedData>;

const sectionText = z.string().max(MAX_SECTION_LENGTH, `must be at most ${MAX_SECTION_LENGTH} characters`);
export const DeepDiveSections = z.strictObject(
  Object.fromEntries(DEEP_DIVE_SECTIONS.map((name) => [name, sectionText.optional()])) as Record<
    (typeof DEEP_DIVE_SECTIONS)[number],
    z.ZodOptional<typeof sectionText>
  >,
);
export type DeepDiveSections = z.infer<typeof DeepDiveSections>;

/**
 * A `## ` section of the file that Baton does not own (notes another tool or a person added):
 * carried through every compile, in the order first seen. Text "" drops it.
 */
export const ExtraSection = z.strictObject({
  title: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^\n\r]+$/, 'must be one line'),
  text: sectionText,
});
export type ExtraSection = z.infer<typeof ExtraSection>;

export const DeepDiveCompiledData = z.strictObject({
  deep_dive_id: deepDiveId,
  sections: DeepDiveSections,
  extra_sections: z.array(ExtraSection).optional(),
  agents_spawned: z.number().int().min(0).optional(),
  agents_completed: z.number().int().min(0).optional(),
  mark_complete: z.boolean(),
});
export type DeepDiveCompiledData = z.infer<typeof DeepDiveCompiledData>;

export const DeepDiveEventType = { initialized: 'deep_dive.initialized', compiled: 'deep_dive.compiled' } as const;

const streams = ['deep_dive'];
export const DEEP_DIVE_EVENT_DEFINITIONS = [
  defineEvent({ type: DeepDiveEventType.initialized, schema: DeepDiveInitializedData, streams, description: 'A deep dive was initialized (or refreshed).' }),
  defineEvent({
    type: DeepDiveEventType.compiled,
    schema: DeepDiveCompiledData,
    streams,
    description: 'Deep-dive sections were compiled (merged into the previous ones).',
  }),
] as const;
