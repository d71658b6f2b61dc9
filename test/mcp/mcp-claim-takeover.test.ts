import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { at, workspace } from '../helpers/coordination.js';
import { connectMcp, mcpToolError } from '../helpers/mcp-client.js';
import { removeTempDirs } from '../helpers/workspace.js';

afterAll(removeTempDirs);

/**
 * The MCP `claim` tool takes what `baton wu claim` takes: `takeover` of a lapsed holder and
 * `force` past a full lane, each with its `reason`, and `paths` to reserve — the same application
 * command, its refusals naming the tool's argument.
 */
async function claim(client: Client, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name: 'claim', arguments: args });
  const envelope = JSON.parse((result.content as { type: 'text'; text: string }[])[0]!.text) as Record<string, unknown>;
  expect(result.isError, JSON.stringify(envelope)).not.toBe(true);
  return envelope;
}

describe('baton mcp: claim with takeover, force, reason and paths', () => {
  it("takes over a lapsed holder's WU only with a reason, reserves paths, and forces a claim past a full lane", async () => {
    const ws = await workspace();
    await ws.withWus('WU-1', 'WU-2');
    const a = await ws.start();
    await ws.ok(['wu', 'claim', 'WU-1'], { as: a });
    const later = at(5 * 3600); // past A's default four-hour lease
    const b = await ws.start([], { now: later });
    const client = await connectMcp(ws.dir, b, later);
    try {
      const head = ws.head();
      const plain = await mcpToolError(client, 'claim', { wu: 'WU-1' });
      expect(plain).toMatchObject({ code: 'NOT_HOLDER', details: { wu_id: 'WU-1', holder: a, holder_live: false } });
      const noReason = await mcpToolError(client, 'claim', { wu: 'WU-1', takeover: true });
      expect(noReason).toMatchObject({ code: 'INVALID_INPUT' });
      expect(String(noReason['message'])).toMatch(/^reason: required with takeover/);
      expect(JSON.stringify(noReason['details'])).toContain('"reason"');
      expect(ws.head()).toBe(head);

      const taken = await claim(client, { wu: 'WU-1', takeover: true, reason: 'A went silent', paths: ['src/a/**'] });
      expect(taken).toMatchObject({ type: 'wu_lifecycle', wu_id: 'WU-1', action: 'claim', claim: { session_id: b, takeover_from: a } });
      const claimed = ws.events().filter((e) => e.type === 'wu.claimed');
      expect(claimed.at(-1)!.data).toMatchObject({ wu_id: 'WU-1', session_id: b, takeover_from: a, reason: 'A went silent', paths: ['src/a/**'] });

      // WU-2 shares lane L1 (WIP limit 1), now held by B: refused, then forced with a reason.
      expect(await mcpToolError(client, 'claim', { wu: 'WU-2' })).toMatchObject({ code: 'LANE_AT_WIP_LIMIT' });
      expect(String((await mcpToolError(client, 'claim', { wu: 'WU-2', force: true }))['message'])).toMatch(/^reason: required with force/);
      await claim(client, { wu: 'WU-2', force: true, reason: 'hotfix' });
      expect(ws.events().at(-1)!.data).toMatchObject({ wu_id: 'WU-2', session_id: b, forced: ['lane'], reason: 'hotfix' });
    } finally {
      await client.close();
    }
  }, 120_000);
});
