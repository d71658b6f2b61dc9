import { z } from 'zod';
import { ALL_EVENT_DEFINITIONS } from '../../events/definitions.js';
import { StoredEventSchema } from '../../events/envelope.js';
import { envelopeSchemas } from '../app/envelopes/registry.js';

/**
 * The published JSON Schemas (`schemas/` in the package), generated from the zod schemas with zod
 * 4's `z.toJSONSchema`: one per envelope type the CLI prints, one per event type (a stored event
 * whose `data` has that type's current shape; legacy shapes are upcast on read and are not
 * described), the stored-event envelope, and `index.json` naming them all. The files are
 * committed (`npm run schemas` writes them; test/json-schemas.test.ts holds them current) so they
 * can be read without building.
 */
const DRAFT = 'https://json-schema.org/draft/2020-12/schema';

function toJson(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete json['$schema'];
  return json;
}

function document(title: string, description: string, body: Record<string, unknown>): string {
  return `${JSON.stringify({ $schema: DRAFT, title, description, ...body }, null, 2)}\n`;
}

/** Relative path under `schemas/` → file text. */
export function jsonSchemaFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const index: { envelopes: Record<string, string>; events: Record<string, string>; stored_event: string } = {
    envelopes: {},
    events: {},
    stored_event: 'stored-event.schema.json',
  };
  for (const [type, schemas] of envelopeSchemas()) {
    const path = `envelopes/${type}.schema.json`;
    const body = schemas.length === 1 ? toJson(schemas[0]!) : { anyOf: schemas.map(toJson) };
    files.set(path, document(`${type} envelope`, `What baton prints in JSON mode with type "${type}".`, body));
    index.envelopes[type] = path;
  }
  files.set(
    index.stored_event,
    document('stored event', 'One line of the event log, any type (data checked per type by events/<type>.schema.json).', toJson(StoredEventSchema)),
  );
  for (const definition of [...ALL_EVENT_DEFINITIONS].sort((a, b) => a.type.localeCompare(b.type))) {
    const path = `events/${definition.type}.schema.json`;
    const schema = StoredEventSchema.extend({ type: z.literal(definition.type), data: definition.schema });
    files.set(path, document(`${definition.type} event`, definition.description, toJson(schema)));
    index.events[definition.type] = path;
  }
  files.set('index.json', `${JSON.stringify(index, null, 2)}\n`);
  return files;
}
