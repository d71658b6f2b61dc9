import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/**
 * Every JSON envelope a test sees from the built `baton` is checked against its published JSON
 * Schema (`schemas/`, generated from the zod schemas): the schemas are proven on real output, and an
 * envelope whose type has no schema fails the test that saw it. Stored event lines (`log show`,
 * `log tail`, exports: they have `seq` and `hash`, no `generated_at`) are checked against the
 * stored-event schema. Lines that are not JSON objects (human text, a completion script) are left alone.
 */
const root = fileURLToPath(new URL('../../schemas/', import.meta.url));

interface SchemaIndex {
  envelopes: Record<string, string>;
  events: Record<string, string>;
  stored_event: string;
}

let loaded: { index: SchemaIndex; ajv: Ajv2020; compiled: Map<string, ValidateFunction> } | undefined;

function schemas(): NonNullable<typeof loaded> {
  if (loaded === undefined) {
    const index = JSON.parse(readFileSync(`${root}index.json`, 'utf8')) as SchemaIndex;
    // Formats are also spelled as patterns by zod; `validateFormats: false` keeps ajv from needing a format plugin.
    loaded = { index, ajv: new Ajv2020({ strict: false, allErrors: true, validateFormats: false }), compiled: new Map() };
  }
  return loaded;
}

function validator(file: string): ValidateFunction {
  const { ajv, compiled } = schemas();
  let validate = compiled.get(file);
  if (validate === undefined) {
    validate = ajv.compile(JSON.parse(readFileSync(`${root}${file}`, 'utf8')) as object);
    compiled.set(file, validate);
  }
  return validate;
}

/** The problem with one printed JSON value, or undefined when it validates (or is no envelope). */
export function envelopeProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (record['v'] !== 1 || typeof record['type'] !== 'string') return undefined;
  const { index } = schemas();
  let file: string | undefined;
  if ('generated_at' in record || record['type'] === 'error') {
    file = index.envelopes[record['type']];
    if (file === undefined) return `an envelope of type "${record['type']}" has no published schema (src/app/envelopes/registry.ts)`;
  } else if ('seq' in record && 'hash' in record) {
    file = index.stored_event;
  } else {
    return undefined;
  }
  const validate = validator(file);
  if (validate(value)) return undefined;
  return `a ${record['type']} envelope does not match schemas/${file}: ${JSON.stringify(validate.errors?.slice(0, 3))}`;
}

/** Every JSON line of a command's stdout, checked; throws naming the first that fails. */
export function checkPrintedEnvelopes(stdout: string): void {
  for (const line of stdout.split('\n')) {
    const text = line.trim();
    if (!text.startsWith('{')) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    const problem = envelopeProblem(value);
    if (problem !== undefined) throw new Error(`${problem}\n  line: ${text.slice(0, 400)}`);
  }
}
