import { invalidInput } from '../../errors.js';
import { readJsonObjectFile } from '../json-config.js';
import type { PlannedFile } from './setup.js';

/**
 * Claude Code's project-scoped MCP servers: `.mcp.json` at the project root, `{"mcpServers": {NAME:
 * {"command", "args"}}}` (a stdio server when no `type` is given), shared with the team through git.
 * Baton's entry is `baton` there, merged so the user's other servers stay; a second run gives the
 * same bytes. No `--dir`: Claude Code starts the server in the project, and a linked worktree
 * resolves to its main checkout's workspace.
 */
export const MCP_CONFIG_PATH = '.mcp.json';

export function claudeMcpEntry(shared: readonly string[]): { command: string; args: string[] } {
  const [command, ...rest] = shared;
  return { command: command!, args: [...rest, 'mcp', '--client', 'claude-code'] };
}

export function planMcpJson(dir: string, shared: readonly string[]): { file: PlannedFile; config: Record<string, unknown> } {
  const { value: config, bytes } = readJsonObjectFile(dir, MCP_CONFIG_PATH);
  const servers = config['mcpServers'] ?? {};
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    throw invalidInput('"mcpServers" must be an object; nothing was written', MCP_CONFIG_PATH);
  const entry = claudeMcpEntry(shared);
  const next = JSON.stringify({ ...config, mcpServers: { ...(servers as Record<string, unknown>), baton: entry } }, null, 2) + '\n';
  return { file: { path: MCP_CONFIG_PATH, current: bytes, next }, config: { mcpServers: { baton: entry } } };
}
