import { z } from 'zod';
import { eventsOn } from './catalog.js';

/** The one event type that belongs to no domain: annotations on the history. */
export const NoteRecordedData = z.strictObject({
  text: z.string().min(1, 'must not be empty').max(4000, 'must be at most 4,000 characters'),
});
export type NoteRecordedData = z.infer<typeof NoteRecordedData>;

export const NOTE_EVENTS = eventsOn('note', [
  { type: 'note.recorded', schema: NoteRecordedData, description: 'An operator or auditor annotation on the history.' },
]);
