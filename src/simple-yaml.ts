/**
 * A parser for the plain subset of YAML that `.baton/config.yaml` is usually written in — block
 * mappings of `key: scalar`, block sequences of scalars (`- item`) under a key, and comments — so a
 * short command reads its settings without loading
 * the `yaml` package (a large share of a short command's budget). It answers only when it is sure to give exactly what `yaml`'s
 * `parse` gives (YAML 1.2 core schema); for anything else (sequences, quotes, flow style, numbers
 * other than plain integers, tabs, anchors, odd indentation…) it returns UNSURE and the caller
 * parses with `yaml`. test/simple-yaml.test.ts holds it to that on random documents.
 */
export const UNSURE: unique symbol = Symbol('simple-yaml.unsure');

type Mapping = Record<string, unknown>;

const KEY_LINE = /^( *)([A-Za-z_][A-Za-z0-9_-]*):(.*)$/;
const ITEM_LINE = /^( *)-(?: (.*))?$/;
const PLAIN_TOKEN = /^[A-Za-z0-9_][A-Za-z0-9_./:@+-]*$/;
const NULL_WORD = /^(?:~|[Nn]ull|NULL)$/;
const BOOL_WORD = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const SAFE_INT = /^(?:0|[1-9][0-9]{0,14})$/;
// What the core schema would read as a number other than a plain integer: left to `yaml`.
const OTHER_NUMBER = /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

/** The document's value (null for an empty one, like `yaml`), or UNSURE. */
export function parseSimpleYaml(text: string): Mapping | null | typeof UNSURE {
  // Only newlines and printable ASCII: no tabs, CR, BOM, control or non-ASCII characters.
  if (!/^[\n\x20-\x7e]*$/.test(text)) return UNSURE;
  let root: Mapping | null = null;
  const stack: { indent: number; map: Mapping }[] = [];
  // A key whose value is on the following lines (a nested mapping or a sequence), or null.
  let pending: { map: Mapping; key: string; indent: number } | undefined;
  // The sequence being read: its `-` column and items.
  let sequence: { indent: number; items: unknown[] } | undefined;
  for (const line of text.split('\n')) {
    if (/^ *(?:#.*)?$/.test(line)) continue;
    const item = ITEM_LINE.exec(line);
    if (item) {
      const indent = item[1]!.length;
      if (pending !== undefined && sequence === undefined && indent >= pending.indent) {
        sequence = { indent, items: [] };
        pending.map[pending.key] = sequence.items;
        pending = undefined;
      }
      if (sequence === undefined || indent !== sequence.indent) return UNSURE;
      const token = valueToken(item[2] ?? '');
      if (token === undefined) return UNSURE;
      const scalar = plainScalar(token);
      if (scalar === UNSURE) return UNSURE;
      sequence.items.push(scalar);
      continue;
    }
    const m = KEY_LINE.exec(line);
    if (!m) return UNSURE;
    const indent = m[1]!.length;
    const key = m[2]!;
    const rest = m[3]!;
    if (key === '__proto__' || NULL_WORD.test(key) || BOOL_WORD.test(key)) return UNSURE;
    if (rest !== '' && !rest.startsWith(' ')) return UNSURE;
    if (sequence !== undefined) {
      // A sequence ends at a key no deeper than its dash.
      if (indent > sequence.indent) return UNSURE;
      sequence = undefined;
    }
    if (root === null) {
      if (indent !== 0) return UNSURE;
      root = {};
      stack.push({ indent: 0, map: root });
    }
    if (pending !== undefined) {
      if (indent > pending.indent) {
        const child: Mapping = {};
        pending.map[pending.key] = child;
        stack.push({ indent, map: child });
      } else {
        pending.map[pending.key] = null;
      }
      pending = undefined;
    }
    while (stack.length > 0 && indent < stack[stack.length - 1]!.indent) stack.pop();
    const top = stack[stack.length - 1];
    if (top === undefined || indent !== top.indent) return UNSURE;
    if (Object.prototype.hasOwnProperty.call(top.map, key)) return UNSURE;
    const value = rest.trim();
    if (value === '' || value.startsWith('#')) {
      pending = { map: top.map, key, indent };
      top.map[key] = null;
      continue;
    }
    const token = valueToken(value);
    if (token === undefined) return UNSURE;
    const scalar = plainScalar(token);
    if (scalar === UNSURE) return UNSURE;
    top.map[key] = scalar;
  }
  return root;
}

/** The one plain token of a value, before an optional ` # comment`; undefined for anything else. */
function valueToken(value: string): string | undefined {
  return /^(\S+)(?: +#.*)?$/.exec(value.trim())?.[1];
}

function plainScalar(token: string): string | number | boolean | null | typeof UNSURE {
  if (!PLAIN_TOKEN.test(token) || token.endsWith(':')) return UNSURE;
  if (NULL_WORD.test(token)) return null;
  if (BOOL_WORD.test(token)) return token[0] === 't' || token[0] === 'T';
  if (SAFE_INT.test(token)) return Number(token);
  if (OTHER_NUMBER.test(token)) return UNSURE;
  return token;
}
