import type { z } from 'zod';
import { readInbox, type InboxInput } from '../../coordination/inbox.js';
import { InboxEnvelope } from '../../validators.generated.js';
import { coordinationEnv } from '../coordination-env.js';
import type { AppContext } from '../context.js';
import { checkedCompiled } from '../envelopes/checked.js';
import type { InboxEnvelope as InboxSchema } from '../envelopes/coordination.js';
import * as storeAccess from '../store-access.js';

export type InboxEnvelope = z.output<typeof InboxSchema>;

/**
 * `mem inbox`, a short command (≤ 2 × `node -e 0` on the CLI): valid input, events and envelope are
 * checked by compiled validators, so it loads neither zod nor `yaml` unless something fails a check;
 * and scripts/bundle-cli.mjs bundles the CLI's command with this and the store into one file.
 */
export async function readInboxEnvelope(app: AppContext, input: InboxInput): Promise<InboxEnvelope> {
  app.useCompiledValidation(storeAccess);
  const view = await readInbox(await coordinationEnv(app), input);
  return checkedCompiled(InboxEnvelope, view);
}
