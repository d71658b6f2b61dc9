import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadCoordinationSettings } from '../src/config/coordination.js';
import { coordinationSettingsFrom } from '../src/coordination/settings.js';
import { parseSimpleYaml, UNSURE } from '../src/simple-yaml.js';
import { readStoreConfig } from '../src/config/store.js';
import { storeConfigFrom } from '../src/store/store-config.js';
import { workUnitsConfigFrom } from '../src/work-units/config.js';
import { loadWorkUnitsConfig } from '../src/config/work-units.js';
import { loadResumeInvocation } from '../src/config/resume.js';
import { resumeInvocationFrom } from '../src/tasks/settings.js';

/**
 * The config fast path (src/simple-yaml.ts, src/config/load-section.ts): whenever the
 * small parser answers, it answers exactly what `yaml` does; and reading settings through the fast
 * path gives the same settings, or the same error, as the zod + `yaml` path.
 */

const KEYS = [
  'store',
  'kind',
  'url',
  'workspace_id',
  'session_ttl',
  'display_name_pool',
  'a2a',
  'profile',
  'flow',
  'a',
  'b-c',
  '_x',
  'null',
  'True',
  '__proto__',
];
const SCALARS = [
  'jsonl',
  'postgres',
  'postgres://u@h:5432/db',
  'local',
  'hosted',
  'ws-1',
  '4h',
  '90s',
  '30m',
  '2d',
  '4x',
  '0',
  '7',
  '007',
  '12',
  '3600',
  '1e3',
  '0x1F',
  '0o7',
  '.5',
  '5.',
  '-1',
  '+1',
  'true',
  'True',
  'TRUE',
  'tRue',
  'false',
  'null',
  'Null',
  '~',
  'yes',
  'on',
  'NaN',
  '.nan',
  '.inf',
  'a:b',
  'a:',
  ':a',
  'b#c',
  'Ada',
  'Bob',
  'ada',
  "'quoted'",
  '"dq"',
  '[a]',
  '{a: 1}',
  '&anchor',
  '*alias',
  '%x',
  '@x',
  '`x',
  '|',
  '>',
  '-',
  '- a',
  'x y',
  '9007199254740993',
  '123456789012345',
];

type Doc = { [key: string]: Doc | string | string[] | null };

const docOf = (keys: readonly string[], scalars: readonly string[]): fc.Arbitrary<Doc> =>
  fc.letrec<{ doc: Doc }>((tie) => ({
    doc: fc.dictionary(
      fc.constantFrom(...keys),
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...scalars) },
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.array(fc.constantFrom(...scalars), { maxLength: 4 }) },
        { weight: 2, arbitrary: tie('doc') },
      ),
      { maxKeys: 4, depthIdentifier: 'doc' },
    ),
  })).doc;
const docArb = docOf(KEYS, SCALARS);

/** The work-unit sections (work-units.md §15), their keys and values on and off their rules. */
const WU_KEYS = [
  'orchestration',
  'stall_threshold',
  'max_active_workers',
  'default_client',
  'default_claim_mode',
  'worktrees_dir',
  'contamination_ignore',
  'lane_defaults',
  'lock_policy',
  'wip_limit',
  'lanes',
  'Core',
  'Docs',
  'prep',
  'commands',
  'probes',
  'enabled',
  'wu_yaml_paths',
  'store',
  'kind',
];
const WU_SCALARS = [
  '4h',
  '90m',
  '0m',
  '1x',
  '0',
  '1',
  '3',
  '1000',
  '1001',
  'codex',
  'generic',
  'nope',
  'worktree',
  'branch-pr',
  'all',
  'active',
  'none',
  'true',
  'false',
  'null',
  'jsonl',
  'docs',
  'wt',
];

interface Style {
  indent: number;
  /** Sequences at the key's own column (`key:\n- a`) or deeper. */
  compactSequences: boolean;
  comments: boolean;
}

function render(doc: Doc, style: Style, depth = 0): string[] {
  const pad = ' '.repeat(depth * style.indent);
  const lines: string[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (style.comments && lines.length % 2 === 1) lines.push(`${pad}# note`);
    if (value === null) lines.push(`${pad}${key}:${style.comments ? '  # empty' : ''}`);
    else if (typeof value === 'string') lines.push(`${pad}${key}: ${value}${style.comments ? ' # c' : ''}`);
    else if (Array.isArray(value)) {
      lines.push(`${pad}${key}:`);
      const itemPad = style.compactSequences ? pad : ' '.repeat((depth + 1) * style.indent);
      for (const item of value) lines.push(`${itemPad}- ${item}`);
    } else {
      lines.push(`${pad}${key}:`);
      lines.push(...render(value, style, depth + 1));
    }
  }
  return lines;
}

const LINE_NOISE = ['', '   ', '# comment', '---', '...', '\tkey: v', 'key:v', '  - x', '- x', 'x', 'a: b: c', 'k: "unterminated', ' k: v', 'k: v\r'];

const textArbOf = (docs: fc.Arbitrary<Doc>): fc.Arbitrary<string> =>
  fc
    .tuple(
      docs,
      fc.record({ indent: fc.constantFrom(1, 2, 4), compactSequences: fc.boolean(), comments: fc.boolean() }),
      fc.array(fc.tuple(fc.nat(), fc.constantFrom(...LINE_NOISE)), { maxLength: 2 }),
      fc.boolean(),
    )
    .map(([doc, style, noise, trailingNewline]) => {
      const lines = render(doc, style);
      for (const [at, line] of noise) lines.splice(at % (lines.length + 1), 0, line);
      return lines.join('\n') + (trailingNewline ? '\n' : '');
    });
const textArb = textArbOf(docArb);

function yamlOutcome(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parseYaml(text) };
  } catch {
    return { ok: false };
  }
}

async function outcome<T>(run: () => T | Promise<T>): Promise<{ value: T } | { error: { code?: unknown; message: string } }> {
  try {
    return { value: await run() };
  } catch (error) {
    return { error: { code: (error as { code?: unknown }).code, message: (error as Error).message } };
  }
}

describe('parseSimpleYaml', () => {
  it('reads the configs baton writes and the usual hand edits', () => {
    expect(parseSimpleYaml('# Baton workspace settings (see README). The log under log/ is the only source of truth.\nstore:\n  kind: jsonl\n')).toStrictEqual({
      store: { kind: 'jsonl' },
    });
    expect(
      parseSimpleYaml(
        'store:\n  kind: postgres\n  url: postgres://u@db:5432/baton  # team\nsession_ttl: 4h\ndisplay_name_pool:\n  - Ada\n  - Grace\na2a:\n  profile: hosted\n  workspace_id: ws-1\n',
      ),
    ).toStrictEqual({
      store: { kind: 'postgres', url: 'postgres://u@db:5432/baton' },
      session_ttl: '4h',
      display_name_pool: ['Ada', 'Grace'],
      a2a: { profile: 'hosted', workspace_id: 'ws-1' },
    });
    expect(parseSimpleYaml('')).toBeNull();
    expect(parseSimpleYaml('# only a comment\n')).toBeNull();
    expect(parseSimpleYaml('session_ttl: 3600')).toStrictEqual({ session_ttl: 3600 });
  });

  it('is unsure of what it does not fully understand', () => {
    for (const text of [
      "a: 'x'",
      'a: [1, 2]',
      'a: 1.5',
      'a: 007',
      '- a',
      'a:\n\tb: 1',
      'a: 1\na: 2',
      '  a: 1',
      'a: b: c',
      'a: x y',
      '\ufeffa: 1',
      'a: 1\r\n',
    ]) {
      expect(parseSimpleYaml(text), text).toBe(UNSURE);
    }
  });

  it('answers exactly what yaml answers whenever it answers (random documents)', () => {
    let answered = 0;
    fc.assert(
      fc.property(textArb, (text) => {
        const mine = parseSimpleYaml(text);
        if (mine === UNSURE) return;
        answered++;
        const reference = yamlOutcome(text);
        expect(reference.ok, `yaml rejects what the fast parser read:\n${text}`).toBe(true);
        expect(mine).toStrictEqual((reference as { value: unknown }).value);
        expect(Object.keys(mine ?? {})).toEqual(Object.keys((reference as { value: Record<string, unknown> | null }).value ?? {}));
      }),
      { numRuns: 3000 },
    );
    // The fast path is worth having only if it reads ordinary documents.
    expect(answered).toBeGreaterThan(300);
  });
});

describe('config fast path', () => {
  const configArb = fc.oneof(
    textArb,
    textArbOf(docOf(WU_KEYS, WU_SCALARS)),
    fc.constantFrom(
      'store:\n  kind: jsonl\n',
      'store:\n  kind: sqlite\n',
      'store:\n  kind: postgres\n',
      'store:\n  kind: postgres\n  url: mysql://x\n',
      'store:\n  kind: postgres\n  url: postgres://h/db\n  workspace_id: w\n',
      'session_ttl: 0\n',
      'session_ttl: 4x\n',
      'display_name_pool:\n  - Ada\n  - ada\n',
      'display_name_pool:\n  - Ada-2\n',
      'a2a:\n  profile: hosted\n',
      'a2a:\n  profile: hosted\n  workspace_id: ws-1\n',
      'a2a:\n  profile: remote\n',
      'a2a:\n  extra: 1\n',
      'store: [\n',
      'orchestration:\n  stall_threshold: 90m\n  max_active_workers: 3\n  default_client: codex\n  default_claim_mode: branch-pr\n',
      'orchestration:\n  stall_threshold: 0m\n',
      'orchestration:\n  contamination_ignore:\n    - docs\n    - dist\n',
      'orchestration:\n  contamination_ignore:\n    - docs/**\n',
      'lane_defaults:\n  lock_policy: active\n  wip_limit: 2\nlanes:\n  Core:\n    wip_limit: 3\n',
      'lanes:\n  Core:\n    extra: 1\n',
      'lanes:\n  "a,b":\n    wip_limit: 1\n',
      'probes:\n  enabled: false\n  wu_yaml_paths:\n    - docs\n',
      'prep:\n  commands:\n    - npm\n',
      'resume:\n  invocation:\n    - npx\n    - baton\n',
      'resume:\n  invocation:\n    - 7\n',
      'resume:\n  invocation: baton\n',
      'resume:\n  other: 1\n',
    ),
  );

  it('reads the store config like storeConfigFrom (value or error)', async () => {
    await fc.assert(
      fc.asyncProperty(configArb, fc.constantFrom(undefined, '', 'postgres://x/y', 'mysql://x'), async (text, url) => {
        expect(await outcome(() => readStoreConfig(text, url))).toStrictEqual(await outcome(() => storeConfigFrom(text, url)));
      }),
      { numRuns: 800 },
    );
    expect(await readStoreConfig(undefined, undefined)).toStrictEqual(storeConfigFrom(undefined, undefined));
  });

  /** The fast reader gives what the zod reader gives (value or error) on every document, and on none. */
  async function readsLike<T>(fast: (text: string | undefined) => T | Promise<T>, slow: (text: string | undefined) => T): Promise<void> {
    await fc.assert(
      fc.asyncProperty(configArb, async (text) => {
        expect(await outcome(() => fast(text))).toStrictEqual(await outcome(() => slow(text)));
      }),
      { numRuns: 800 },
    );
    expect(await fast(undefined)).toStrictEqual(slow(undefined));
  }

  it('reads the coordination settings like coordinationSettingsFrom (value or error)', async () => {
    await readsLike(loadCoordinationSettings, coordinationSettingsFrom);
  });

  it('reads the resume invocation like resumeInvocationFrom (value or error)', async () => {
    await readsLike(loadResumeInvocation, resumeInvocationFrom);
    expect(await loadResumeInvocation('resume:\n  invocation:\n    - npx\n    - baton\n')).toStrictEqual(['npx', 'baton']);
  });

  it('reads the work-unit settings like workUnitsConfigFrom (value or error)', async () => {
    let read = 0;
    await fc.assert(
      fc.asyncProperty(configArb, async (text) => {
        const fast = await outcome(() => loadWorkUnitsConfig(text));
        expect(fast).toStrictEqual(await outcome(() => workUnitsConfigFrom(text)));
        if ('value' in fast && JSON.stringify(fast.value) !== JSON.stringify(workUnitsConfigFrom(undefined))) read++;
      }),
      { numRuns: 1500 },
    );
    expect(await loadWorkUnitsConfig(undefined)).toStrictEqual(workUnitsConfigFrom(undefined));
    // The random documents reach settings other than the defaults, not only errors.
    expect(read).toBeGreaterThan(20);
  });
});
