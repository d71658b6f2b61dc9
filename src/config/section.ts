import type { z } from 'zod';
import type { CompiledSchema } from '../../events/compiled.js';

/**
 * One section of `.baton/config.yaml` as the loader needs it: the zod schema is the single source
 * of truth; its compiled validator (a build output, no zod) reads a valid plain file, and the
 * schema itself is loaded only to read YAML the plain reader is unsure of or to word an error.
 */
export interface ConfigSection<T> {
  /** The schema's compiled validator (a `*.generated.ts` export). */
  readonly compiled: CompiledSchema<T>;
  /** Loads the zod schema it was compiled from (a dynamic import, so zod loads only when called). */
  readonly schema: () => Promise<z.ZodType<T>>;
  /** The section's value when there is no config.yaml: what the schema gives for an empty file. */
  readonly defaults: T;
}
