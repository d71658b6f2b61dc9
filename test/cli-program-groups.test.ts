import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, commandNamed, REGISTRARS } from '../src/cli/program.js';

/**
 * `baton <group> …` declares only that group (a short command saves commander building ~80
 * commands). These hold that the program it builds runs the same group: every top-level command
 * is declared exactly as in the whole program (its help, its options, its subcommands' help, all
 * the way down), and the registrar table names what each registrar adds.
 */

/** The help of `command` and of every command under it, as printed (help text added after included). */
function helpTree(command: Command, path = command.name()): string {
  let out = '';
  command.configureOutput({ writeOut: (s) => void (out += s), writeErr: (s) => void (out += s) });
  command.outputHelp();
  return `== ${path}\n${out}${command.commands.map((c) => helpTree(c, `${path} ${c.name()}`)).join('')}`;
}

const argvFor = (...args: string[]): string[] => ['node', 'baton', ...args];

describe('the program built for one command', () => {
  const full = buildProgram();
  const names = full.commands.map((c) => c.name());

  it('the registrar table names every top-level command, each as its registrars add it', () => {
    expect(new Set(REGISTRARS.flatMap((r) => r.names))).toEqual(new Set(names));
    for (const { names: declared, register } of REGISTRARS) {
      const alone = new Command('baton');
      register(alone);
      expect(alone.commands.map((c) => c.name()).sort()).toEqual([...declared].sort());
    }
  });

  it.each(full.commands.map((c) => c.name()))('`baton %s …` declares that command exactly as the whole program does', (name) => {
    const program = buildProgram(argvFor('--dir', '/tmp/x', '--json', name, 'anything'));
    const command = program.commands.find((c) => c.name() === name);
    expect(command).toBeDefined();
    expect(helpTree(command!)).toBe(helpTree(full.commands.find((c) => c.name() === name)!));
    // The program's own options are the same.
    expect(program.options.map((o) => o.flags)).toEqual(full.options.map((o) => o.flags));
  });

  it('anything else declares every command', () => {
    for (const args of [[], ['--help'], ['-h'], ['--version'], ['help', 'mem'], ['nonsense'], ['--no-such-option', 'mem'], ['--', 'mem'], ['--dir']]) {
      expect(buildProgram(argvFor(...args)).commands.map((c) => c.name())).toEqual(names);
    }
  });
});

describe('commandNamed', () => {
  it('skips the program options and their values', () => {
    expect(commandNamed(argvFor('mem', 'inbox'))).toBe('mem');
    expect(commandNamed(argvFor('--dir', 'mem', 'log', 'show'))).toBe('log');
    expect(commandNamed(argvFor('--dir=/w', '--json', '--human', '--session', 'status', 'orchestrate', 'status'))).toBe('orchestrate');
    expect(commandNamed(argvFor('--session=s1', 'status'))).toBe('status');
  });

  it('is undefined when no command is certain', () => {
    expect(commandNamed(argvFor())).toBeUndefined();
    expect(commandNamed(argvFor('--dir', '/w'))).toBeUndefined();
    expect(commandNamed(argvFor('-V'))).toBeUndefined();
    expect(commandNamed(argvFor('--unknown', 'mem'))).toBeUndefined();
    expect(commandNamed(argvFor('--', 'mem'))).toBeUndefined();
  });
});
