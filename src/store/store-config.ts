import { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import { invalidInput } from '../errors.js';
import { describeZodIssues } from '../../events/validation.js';

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

export function storeConfigFrom(configText: string | undefined, storeUrl: string | undefined): StoreConfig {
  let fromFile: StoreConfig = { kind: StoreKind.jsonl };
  if (configText !== undefined) {
    let parsed: unknown;
    try {
      parsed = parseYaml(configText) ?? {};
    } catch (error) {
      throw invalidInput(`is not valid YAML (${(error as Error).message.split('\n')[0]})`, 'config.yaml');
    }
    const result = ConfigFileSchema.safeParse(parsed);
    if (!result.success) throw invalidInput(describeZodIssues(result.error, 'config.yaml'));
    if (result.data.store) fromFile = result.data.store;
  }
  if (storeUrl !== undefined && storeUrl !== '') {
    const result = StoreConfigSchema.safeParse({ kind: StoreKind.postgres, url: storeUrl, ...(fromFile.kind === 'postgres' && fromFile.workspace_id ? { workspace_id: fromFile.workspace_id } : {}) });
    if (!result.success) throw invalidInput(describeZodIssues(result.error, 'BATON_STORE_URL'));
    return result.data;
  }
  return fromFile;
}
