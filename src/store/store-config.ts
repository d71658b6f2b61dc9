import { z } from 'zod';
import { invalidInput } from '../errors.js';
import { describeZodIssues } from '../../events/validation.js';
import { parseConfigSection } from '../config/parse-section.js';

/** The `store:` section of `.baton/config.yaml`, and `BATON_STORE_URL` overriding it. */
export const StoreKind = { jsonl: 'jsonl', postgres: 'postgres' } as const;

export const StoreConfigSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal(StoreKind.jsonl) }),
  z.strictObject({
    kind: z.literal(StoreKind.postgres),
    url: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
    workspace_id: z.string().min(1).max(128).optional(),
  }),
]);
export type StoreConfig = z.infer<typeof StoreConfigSchema>;

export const ConfigFileSchema = z.looseObject({ store: StoreConfigSchema.optional() });
export type ConfigFile = z.output<typeof ConfigFileSchema>;

/** The store of config.yaml's text (undefined: no file) and BATON_STORE_URL; src/config/store.ts reads it without zod. */
export function storeConfigFrom(configText: string | undefined, storeUrl: string | undefined): StoreConfig {
  const fromFile = parseConfigSection(configText, ConfigFileSchema, {}).store ?? { kind: StoreKind.jsonl };
  if (storeUrl === undefined || storeUrl === '') return fromFile;
  return withStoreUrl(fromFile, storeUrl);
}

/** `BATON_STORE_URL` over the file's store: postgres at that URL, keeping the file's workspace_id. */
export function withStoreUrl(fromFile: StoreConfig, storeUrl: string): StoreConfig {
  const result = StoreConfigSchema.safeParse({
    kind: StoreKind.postgres,
    url: storeUrl,
    ...(fromFile.kind === 'postgres' && fromFile.workspace_id ? { workspace_id: fromFile.workspace_id } : {}),
  });
  if (!result.success) throw invalidInput(describeZodIssues(result.error, 'BATON_STORE_URL'));
  return result.data;
}
