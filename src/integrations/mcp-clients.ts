import { join } from 'node:path';
import { FileAccess, readIfFile, writeFileAtomic } from '../artifacts/atomic-write.js';
import { invalidInput } from '../errors.js';
import { assertNoLinksAt } from '../artifacts/owned-paths.js';
import { appendBlock, replaceBetweenMarkers, writeAgentSection } from './agent-section.js';
import { readJsonObjectFile } from './json-config.js';

/**
 * `baton setup codex | cursor`: the project's MCP client configuration for `baton mcp`, merged so
 * the user's other servers stay, plus the Baton section of AGENTS.md. A second run changes nothing.
 * The server command is the absolute node + baton that ran setup, with `--dir` the workspace.
 */
export interface McpServerEntry {
  command: string;
  args: string[];
}

export interface McpSetupResult {
  files: string[];
  changed: boolean;
  mcp_config: Record<string, unknown>;
}

export const AGENTS_PATH = 'AGENTS.md';
export const CODEX_CONFIG_PATH = '.codex/config.toml';
export const CURSOR_CONFIG_PATH = '.cursor/mcp.json';
const TOML_START = '# baton:start (written by `baton setup codex`; re-running it replaces this block)';
const TOML_END = '# baton:end';

export function mcpServerEntry(invocation: readonly string[], workspace: string, client: string): McpServerEntry {
  const [command, ...rest] = invocation;
  return { command: command!, args: [...rest, '--dir', workspace, 'mcp', '--client', client] };
}

/** A TOML basic string: JSON's escaping is valid TOML for these (quotes, backslashes, \uXXXX). */
const tomlString = (value: string): string => JSON.stringify(value);

export function codexBlock(entry: McpServerEntry): string {
  return [TOML_START, '[mcp_servers.baton]', `command = ${tomlString(entry.command)}`, `args = [${entry.args.map(tomlString).join(', ')}]`, TOML_END, ''].join(
    '\n',
  );
}

/** The config text with Baton's block in place: replaced between its markers, else appended (a table at the end is always valid TOML). */
export function withCodexBlock(current: string | undefined, block: string): string {
  if (current === undefined || current === '') return block;
  const replaced = replaceBetweenMarkers(current, TOML_START.slice(0, 14), TOML_END, block);
  if (replaced !== undefined) return replaced;
  if (/^\s*\[mcp_servers\.baton\]/m.test(current)) {
    throw invalidInput("already declares [mcp_servers.baton] outside Baton's markers; remove it, then run setup again. Nothing was written", CODEX_CONFIG_PATH);
  }
  return appendBlock(current, block);
}

function writeIfDifferent(workspace: string, relative: string, next: string, current: string | undefined): boolean {
  if (next === current) return false;
  writeFileAtomic(workspace, join(workspace, relative), next, FileAccess.shared);
  return true;
}

export function setupCodex(workspace: string, invocation: readonly string[], section: string): McpSetupResult {
  assertNoLinksAt(workspace, [CODEX_CONFIG_PATH, AGENTS_PATH]);
  const entry = mcpServerEntry(invocation, workspace, 'codex');
  const current = readIfFile(workspace, join(workspace, CODEX_CONFIG_PATH))?.toString('utf8');
  const next = withCodexBlock(current, codexBlock(entry));
  let changed = writeIfDifferent(workspace, CODEX_CONFIG_PATH, next, current);
  if (writeAgentSection(workspace, AGENTS_PATH, section)) changed = true;
  return { files: [CODEX_CONFIG_PATH, AGENTS_PATH], changed, mcp_config: { mcp_servers: { baton: entry } } };
}

export function setupCursor(workspace: string, invocation: readonly string[], section: string): McpSetupResult {
  assertNoLinksAt(workspace, [CURSOR_CONFIG_PATH, AGENTS_PATH]);
  const entry = mcpServerEntry(invocation, workspace, 'generic');
  const { value: config, bytes: current } = readJsonObjectFile(workspace, CURSOR_CONFIG_PATH);
  const servers = config['mcpServers'] ?? {};
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    throw invalidInput('"mcpServers" must be an object; nothing was written', CURSOR_CONFIG_PATH);
  const next = JSON.stringify({ ...config, mcpServers: { ...(servers as Record<string, unknown>), baton: entry } }, null, 2) + '\n';
  let changed = writeIfDifferent(workspace, CURSOR_CONFIG_PATH, next, current);
  if (writeAgentSection(workspace, AGENTS_PATH, section)) changed = true;
  return { files: [CURSOR_CONFIG_PATH, AGENTS_PATH], changed, mcp_config: { mcpServers: { baton: entry } } };
}
