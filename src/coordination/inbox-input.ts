import { z } from 'zod';
import { INTENTS, threadId, wuId } from '../../events/coordination/identities.js';

/** `mem inbox`'s input (§7.3). readInbox checks it with the compiled validator first; this schema words the errors. */
export const InboxInput = z.strictObject({
  for: z.string().min(1).max(200).optional(),
  thread: threadId.optional(),
  intent: z.array(z.enum(INTENTS, `must be one of ${INTENTS.join(', ')}`)).optional(),
  wu: wuId.optional(),
  mark: z.boolean().default(true),
  all: z.boolean().default(false),
});
export type InboxInput = z.input<typeof InboxInput>;
export type InboxOptions = z.output<typeof InboxInput>;
