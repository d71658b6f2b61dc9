import { INVALID } from '../../events/compiled.js';
import { parseSimpleYaml, UNSURE } from '../simple-yaml.js';
import { ConfigFileSchema } from '../validators.generated.js';
import type { StoreConfig } from './store-config.js';

/**
 * `storeConfigFrom` without loading zod or `yaml` when it need not: a config in plain YAML that
 * passes the compiled schema (events/compiled.ts), and no BATON_STORE_URL, is read here; anything
 * else — including every error — is store-config.ts's answer, word for word.
 */
export async function readStoreConfig(configText: string | undefined, storeUrl: string | undefined): Promise<StoreConfig> {
  const fast = fastStoreConfig(configText, storeUrl);
  if (fast !== undefined) return fast;
  return (await import('./store-config.js')).storeConfigFrom(configText, storeUrl);
}

function fastStoreConfig(configText: string | undefined, storeUrl: string | undefined): StoreConfig | undefined {
  if (storeUrl !== undefined && storeUrl !== '') return undefined;
  if (configText === undefined) return { kind: 'jsonl' };
  const raw = parseSimpleYaml(configText);
  if (raw === UNSURE) return undefined;
  const parsed = ConfigFileSchema.parse(raw ?? {});
  if (parsed === INVALID) return undefined;
  return parsed.store ?? { kind: 'jsonl' };
}
