import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'vitest';
import { BATON_BIN, childEnv } from './cli.js';
import { T0 } from './coordination.js';

/** `baton --dir DIR --session S mcp` through the SDK's own client, as an MCP host runs it (its clock at `now`, T0 unless given). */
export async function connectMcp(dir: string, session: string, now: string = T0): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BATON_BIN, '--dir', dir, '--session', session, 'mcp'],
    env: childEnv({ BATON_NOW: now }) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'baton-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** A tool call that must fail: its error envelope. */
export async function mcpToolError(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
  return JSON.parse((result.content as { type: 'text'; text: string }[])[0]!.text) as Record<string, unknown>;
}

/** Every tool `baton mcp` lists, sorted: one list for every test that checks it. */
export const MCP_TOOL_NAMES = [
  'audit',
  'check_paths',
  'checkpoint',
  'claim',
  'finish',
  'inbox',
  'orchestrate_status',
  'release',
  'return',
  'roster',
  'send_signal',
  'status',
  'task_create',
  'task_transition',
  'wu_list',
];
