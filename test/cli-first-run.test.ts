import { afterAll, describe, expect, it } from 'vitest';
import { REGISTRARS } from '../src/cli/program.js';
import { spawnSync } from 'node:child_process';
import { BATON_BIN, childEnv, runBaton } from './helpers/cli.js';
import { makeTempDir, removeTempDirs } from './helpers/workspace.js';

/**
 * First run: a bare `baton` and every bare group print their help and exit 0 (they printed
 * nothing); a wrong command exits 2 suggesting the nearest one. Nothing is written either way.
 */
afterAll(removeTempDirs);

/** Top-level commands that are groups (they have subcommands and no action of their own). */
const GROUPS = ['log', 'flow', 'deep-dive', 'mem', 'hooks', 'wu', 'initiative', 'orchestrate'];

describe('first run', () => {
  it('bare baton prints the program help, exit 0', async () => {
    const cwd = makeTempDir('baton-first-run-');
    const r = await runBaton([], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: baton \[options\] \[command\]/);
    expect(r.stdout).toContain('Exit codes:');
  });

  it.each(GROUPS.map((g) => [g]))("bare baton %s prints that group's help, exit 0, and writes nothing", async (group) => {
    expect(REGISTRARS.some((r) => r.names.includes(group))).toBe(true);
    const cwd = makeTempDir('baton-first-run-');
    const r = await runBaton(['--dir', cwd, group], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: baton ${group} \\[options\\] \\[command\\]`));
    expect(r.stdout).toContain('Commands:');
    expect(r.stderr).toBe('');
  });

  it('a wrong command exits 2 and suggests the nearest one', async () => {
    const cwd = makeTempDir('baton-first-run-');
    const r = await runBaton(['--json', 'wux'], { cwd });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'error', code: 'INVALID_INPUT', message: expect.stringContaining('Did you mean wu?') });
  });

  it('a reader that stops early (`baton --help | head -1`) ends the output quietly: no EPIPE stack trace', () => {
    // The pipe is closed before baton writes: `true` reads nothing and exits at once.
    const r = spawnSync('/bin/sh', ['-c', `"${process.execPath}" "${BATON_BIN}" log --help | true; "${process.execPath}" "${BATON_BIN}" --help | head -c 10`], {
      env: childEnv(),
      encoding: 'utf8',
    });
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
    expect(r.stdout).toBe('Usage: bat');
  });
});
