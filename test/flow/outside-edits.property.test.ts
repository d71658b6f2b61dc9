import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { decoded } from '../helpers/decoded.js';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { applyFlowEvent, initFlowState, latestFlow, renderFlowFile } from '../../projections/flow/index.js';
import { flowWorkspace, O, status, type FlowWs } from '../helpers/flow-cli.js';
import { removeTempDirs } from '../helpers/workspace.js';

/**
 * The property: for random sequences mixing `baton flow update` and outside edits of the
 * state file (legal and illegal), no edit is ever lost without a recorded observation or a kept
 * `.bak` plus a warning, and after every command the file equals the rendering of the log. Real
 * processes are slow, so the runs are few and short; the edits cover every kind the reader tells
 * apart (a field, a phase move, a skip-ahead, a bad value, an edit of Baton's iteration, garbage).
 */
afterAll(removeTempDirs);

const ORDER = ['exploration', 'planning', 'implementation', 'review', 'verification'] as const;
const AGENT: Record<string, string> = { exploration: 'Riko', planning: 'Senku', implementation: 'Loid', review: 'Lawliet', verification: 'Alphonse' };

type Op =
  | { kind: 'advance' }
  | { kind: 'fail' }
  | { kind: 'set'; complexity: string }
  | { kind: 'editField'; complexity: string }
  | { kind: 'editAdvance' }
  | { kind: 'editSkipAhead' }
  | { kind: 'editBadValue' }
  | { kind: 'editIteration' }
  | { kind: 'editGarbage' };

const complexity = fc.constantFrom('trivial', 'exploratory', 'implementation', 'complex', 'research');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'advance' }),
  fc.constant<Op>({ kind: 'fail' }),
  complexity.map((c): Op => ({ kind: 'set', complexity: c })),
  complexity.map((c): Op => ({ kind: 'editField', complexity: c })),
  fc.constant<Op>({ kind: 'editAdvance' }),
  fc.constant<Op>({ kind: 'editSkipAhead' }),
  fc.constant<Op>({ kind: 'editBadValue' }),
  fc.constant<Op>({ kind: 'editIteration' }),
  fc.constant<Op>({ kind: 'editGarbage' }),
);

/** The state file as the log renders it right now (folded in this process). */
function renderedFromLog(w: FlowWs): string {
  let state = initFlowState();
  for (const event of w.events()) state = applyFlowEvent(state, decoded(event));
  const record = latestFlow(state);
  if (record === null) throw new Error('no flow');
  return renderFlowFile(record);
}

const backups = (w: FlowWs): string[] => readdirSync(join(w.ws, '.claude')).filter((n) => n.includes('.bak.'));

function currentPhase(text: string): string {
  return /^current_phase: "([a-z_]+)"$/m.exec(text)?.[1] ?? 'complete';
}

/** Apply an outside edit; returns whether it is one Baton may take as a fact. */
function edit(w: FlowWs, o: Op): boolean {
  const path = join(w.ws, O);
  const text = readFileSync(path, 'utf8');
  const phase = currentPhase(text);
  const active = /^active: true$/m.test(text);
  const setGate = (t: string, p: string, s: string): string => t.replace(new RegExp(`(\\n  ${p}:\\n    status: )"[a-z_]+"`), `$1"${s}"`);
  switch (o.kind) {
    case 'editField':
      writeFileSync(path, text.replace(/^task_complexity: .*$/m, `task_complexity: "${o.complexity}"`));
      return active && !text.includes(`task_complexity: "${o.complexity}"`);
    case 'editAdvance': {
      const next = ORDER[ORDER.indexOf(phase as (typeof ORDER)[number]) + 1];
      if (next === undefined || !active) return false;
      writeFileSync(path, setGate(text, phase, 'passed').replace(/^current_phase: .*$/m, `current_phase: "${next}"`));
      return true;
    }
    case 'editSkipAhead':
      writeFileSync(path, text.replace(/^current_phase: .*$/m, 'current_phase: "verification"'));
      return false;
    case 'editBadValue':
      writeFileSync(path, text.replace(/^task_complexity: .*$/m, 'task_complexity: "enormous"'));
      return false;
    case 'editIteration':
      writeFileSync(path, text.replace(/^iteration: .*$/m, 'iteration: 9'));
      return false;
    case 'editGarbage':
      writeFileSync(path, `${text.slice(0, 20)}\n: : [\n`);
      return false;
    default:
      return false;
  }
}

async function command(w: FlowWs, o: Op, at: string): Promise<ReturnType<typeof status> | null> {
  const text = readFileSync(join(w.ws, O), 'utf8');
  const phase = currentPhase(text);
  const args =
    o.kind === 'advance' && ORDER.includes(phase as (typeof ORDER)[number]) && phase !== 'verification'
      ? ['update', '--phase', ORDER[ORDER.indexOf(phase as (typeof ORDER)[number]) + 1]!, '--gate-result', 'passed', '--agent', AGENT[phase]!]
      : o.kind === 'fail' && phase in AGENT
        ? ['update', '--gate-result', 'failed', '--agent', AGENT[phase]!]
        : o.kind === 'set'
          ? ['update', '--set-task-complexity', o.complexity]
          : ['status']; // any other op (an edit kind) asks for the status
  const r = await w.f(args, { at });
  // A refused update (an ended flow, a move the machine refuses) is fine: it changes nothing.
  return r.code === 0 ? status(r) : null;
}

describe('outside edits are never lost', () => {
  it('random mixes of flow update and outside edits: each edit is observed or kept aside with a warning; the file ends as the log renders it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 2, maxLength: 5 }), async (ops) => {
        const w = await flowWorkspace();
        status(await w.f(['init', 'x'], { at: '10:30' }));
        let minute = 31;
        for (const [i, o] of ops.entries()) {
          const at = `10:${String(minute++).padStart(2, '0')}`;
          if (!o.kind.startsWith('edit')) {
            await command(w, o, at);
            expect(w.read(O)).toBe(renderedFromLog(w));
            continue;
          }
          const unedited = w.read(O);
          const legal = edit(w, o);
          const edited = w.read(O);
          if (edited === unedited) continue; // an edit that changed nothing is nothing to keep
          const eventsBefore = w.events().length;
          const backupsBefore = backups(w).length;
          // The edit is read by whichever flow command comes next: a status, or an update.
          const next: Op = i % 2 === 0 ? { kind: 'editGarbage' } : { kind: 'advance' };
          const s = await command(w, next, at);
          const observed = w
            .events()
            .slice(eventsBefore)
            .some((e) => e.type === 'flow.observed' && e.actor === `file:${O}`);
          const keptAside =
            backups(w).filter((n) => readFileSync(join(w.ws, '.claude', n), 'utf8') === edited).length > 0 && backups(w).length === backupsBefore + 1;
          // Never lost: recorded, or kept with a warning (the status envelope's warnings carry it).
          expect(observed || keptAside).toBe(true);
          if (legal) expect(observed).toBe(true);
          else expect(keptAside).toBe(true);
          if (keptAside && s !== null) expect(s.warnings.join('\n')).toMatch(/was edited outside Baton and the edit is not a legal flow step: key '[^']+': /);
          expect(w.read(O)).toBe(renderedFromLog(w));
        }
      }),
      { numRuns: 6 },
    );
  }, 240_000);
});
