import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv } from '../helpers/cli.js';
import { workspace } from '../helpers/coordination.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

/** `baton setup codex | cursor`: the MCP client configuration for `baton mcp`, merged and idempotent. */
describe('baton setup codex and cursor', () => {
  it("codex: a marked [mcp_servers.baton] block beside the user's own servers; a second run is byte-identical", async () => {
    const ws = await workspace();
    mkdirSync(join(ws.dir, '.codex'));
    const user = 'model = "o4"\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]\n';
    writeFileSync(join(ws.dir, '.codex', 'config.toml'), user);
    const first = await ws.ok(['setup', 'codex']);
    expect(first.json).toMatchObject({ type: 'client_setup', client: 'codex', changed: true, files: ['.codex/config.toml', 'AGENTS.md'] });
    const text = readFileSync(join(ws.dir, '.codex', 'config.toml'), 'utf8');
    expect(text.startsWith(user)).toBe(true);
    expect(text).toContain('[mcp_servers.baton]');
    expect(text).toContain(`command = ${JSON.stringify(process.execPath)}`);
    expect(text).toContain(`"--dir", ${JSON.stringify(ws.dir)}, "mcp", "--client", "codex"]`);
    const agents = readFileSync(join(ws.dir, 'AGENTS.md'), 'utf8');
    expect(agents).toContain('baton wu checkpoint');
    const second = await ws.ok(['setup', 'codex']);
    expect(second.json).toMatchObject({ changed: false });
    expect(readFileSync(join(ws.dir, '.codex', 'config.toml'), 'utf8')).toBe(text);
    expect(readFileSync(join(ws.dir, 'AGENTS.md'), 'utf8')).toBe(agents);
    expect(ws.head()).toBe(0);
  });

  it('codex: a [mcp_servers.baton] the user wrote is not duplicated: exit 2, nothing written', async () => {
    const ws = await workspace();
    mkdirSync(join(ws.dir, '.codex'));
    const user = '[mcp_servers.baton]\ncommand = "baton"\nargs = ["mcp"]\n';
    writeFileSync(join(ws.dir, '.codex', 'config.toml'), user);
    const run = await ws.run(['setup', 'codex']);
    expect(run.code).toBe(2);
    expect(readFileSync(join(ws.dir, '.codex', 'config.toml'), 'utf8')).toBe(user);
  });

  it('cursor: mcpServers.baton merged into .cursor/mcp.json; the configured command serves Baton to an MCP client', async () => {
    const ws = await workspace();
    mkdirSync(join(ws.dir, '.cursor'));
    writeFileSync(join(ws.dir, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { docs: { command: 'npx', args: ['-y', 'docs-mcp'] } } }));
    await ws.ok(['setup', 'cursor']);
    const bytes = readFileSync(join(ws.dir, '.cursor', 'mcp.json'));
    const config = JSON.parse(bytes.toString('utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> };
    expect(config.mcpServers['docs']).toEqual({ command: 'npx', args: ['-y', 'docs-mcp'] });
    expect((await ws.ok(['setup', 'cursor'])).json).toMatchObject({ changed: false });
    expect(readFileSync(join(ws.dir, '.cursor', 'mcp.json')).equals(bytes)).toBe(true);

    const baton = config.mcpServers['baton']!;
    const client = new Client({ name: 'cursor-like', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: baton.command, args: baton.args, env: childEnv() as Record<string, string>, stderr: 'pipe' }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('status');
      const status = await client.callTool({ name: 'status', arguments: {} });
      expect(JSON.parse((status.content as { text: string }[])[0]!.text)).toMatchObject({ type: 'orchestration_status' });
    } finally {
      await client.close();
    }
  }, 60_000);
});
