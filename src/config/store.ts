import type { ConfigFile, StoreConfig } from '../store/store-config.js';
import { ConfigFileSchema } from '../validators.generated.js';
import { loadConfigSection } from './load-section.js';
import type { ConfigSection } from './section.js';

/** The `store:` section of config.yaml (architecture spec, "The store contract"). */
export const STORE_CONFIG_SECTION: ConfigSection<ConfigFile> = {
  compiled: ConfigFileSchema,
  schema: () => import('../store/store-config.js').then((m) => m.ConfigFileSchema),
  defaults: {},
};

/**
 * `storeConfigFrom` (store/store-config.ts), loading zod and `yaml` only when it must: the file's
 * `store:` section, then `BATON_STORE_URL` (`storeUrl`) over it, which zod checks.
 */
export async function readStoreConfig(configText: string | undefined, storeUrl: string | undefined): Promise<StoreConfig> {
  const fromFile = (await loadConfigSection(configText, STORE_CONFIG_SECTION)).store ?? { kind: 'jsonl' };
  if (storeUrl === undefined || storeUrl === '') return fromFile;
  return (await import('../store/store-config.js')).withStoreUrl(fromFile, storeUrl);
}
