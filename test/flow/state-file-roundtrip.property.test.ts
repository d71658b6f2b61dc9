import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startedContext } from '../../machines/flow-context.js';
import { step } from '../../machines/flow-snapshot.js';
import { applyEntry, initialEntries, renderFlowFile, flowFrontmatter, type FlowRecord } from '../../projections/flow/index.js';
import type { FlowMachineEvent } from '../../machines/flow-events.js';

/**
 * Messages, results and task texts of random Unicode, quotes, `---` lines and newlines always give
 * state files whose frontmatter parses back to exactly the recorded values, on one line per key.
 */
const nasty = fc
  .oneof(
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('---', '\n---\n', '"quoted"', "it's", 'a\\b', '# heading', '\r\n', 'key: value', '- item', '\t', '\u2028', '\u0085', ''),
  )
  .map((s) => s.replace(/[\uD800-\uDFFF]/g, '?'));
const text = fc.array(nasty, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('\n'));

const at = '2024-01-15T10:30:00.000Z';

function frontOf(file: string): unknown {
  const end = file.indexOf('\n---\n', 4);
  return parse(file.slice(4, end + 1));
}

describe('state files round-trip any text', () => {
  it('frontmatter parses back to the recorded values (team file, teammate results and messages)', () => {
    fc.assert(
      fc.property(
        text.filter((t) => t.trim() !== ''),
        text,
        text,
        text,
        (task, m1, r1, r2) => {
          let ctx = startedContext(
            {
              flow_id: 'flow_x',
              variant: 'team',
              mode: 'team',
              team_available: true,
              task,
              max_iterations: 3,
              deep_dive: { available: false, using: false, scope: null, generated: null, requested: false },
            },
            at,
          );
          let entries = initialEntries(at);
          const events: FlowMachineEvent[] = [
            { type: 'RECORD_GATE', status: 'failed', agent: 'Riko', message: m1, at },
            { type: 'RECORD_GATE', status: 'passed', agent: 'Riko', message: m1, at },
            { type: 'ADVANCE', to: 'planning', at },
            { type: 'RECORD_GATE', status: 'passed', agent: 'Senku', at },
            { type: 'ADVANCE', to: 'implementation', at },
            { type: 'RECORD_GATE', status: 'passed', agent: 'Loid', at },
            { type: 'ADVANCE', to: 'review_verification', at },
            { type: 'RECORD_TEAMMATE', teammate: 'review', status: 'passed', agent: 'Lawliet', result: r1, at },
            { type: 'RECORD_TEAMMATE', teammate: 'verification', status: 'in_progress', agent: 'Alphonse', result: r2, at },
          ];
          for (const event of events) {
            const r = step(ctx, event);
            expect(r.accepted).toBe(true);
            if (!r.accepted) return;
            for (const f of r.facts) entries = applyEntry(entries, f, at);
            ctx = { ...r.context, outbox: [] };
          }
          const record: FlowRecord = { stream: 'flow/flow_x', version: 1, start_mode: 'team', context: ctx, entries, expected: [] };
          const file = renderFlowFile(record);
          expect(frontOf(file)).toEqual(flowFrontmatter(ctx));
          expect(file.split('\n').filter((l) => l === '---')).toHaveLength(2);
          expect(file.split('\n').filter((l) => /^\S/.test(l) && !l.startsWith('---') && !l.startsWith('#') && !l.startsWith('- ')).length).toBeGreaterThan(0);
          expect(file.endsWith('\n') && !file.endsWith('\n\n')).toBe(true);
          // Every recorded line-based key stays on one line.
          expect(file.split('\n').filter((l) => l.startsWith('task:'))).toHaveLength(1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('sequential file keeps messages with the gate that recorded them', () => {
    fc.assert(
      fc.property(
        text.filter((t) => t.trim() !== ''),
        text,
        (task, message) => {
          let ctx = startedContext(
            {
              flow_id: 'flow_y',
              variant: 'orchestrate',
              mode: 'sequential',
              team_available: null,
              task,
              max_iterations: 2,
              deep_dive: { available: false, using: false, scope: null, generated: null, requested: true },
            },
            at,
          );
          const r = step(ctx, { type: 'RECORD_GATE', status: 'failed', agent: 'Riko', message, at });
          if (!r.accepted) throw new Error('refused');
          ctx = { ...r.context, outbox: [] };
          const entries = r.facts.reduce((e, f) => applyEntry(e, f, at), initialEntries(at));
          const file = renderFlowFile({ stream: 'flow/flow_y', version: 2, start_mode: 'sequential', context: ctx, entries, expected: [] });
          const front = frontOf(file) as { task: string; gates: { exploration: { message: string } } };
          expect(front.task).toBe(task);
          expect(front.gates.exploration.message).toBe(message);
          expect(file).toContain('- Deep-Dive Context: Requested but not available\n');
        },
      ),
      { numRuns: 300 },
    );
  });
});
