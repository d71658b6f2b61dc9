import { describe, expect, it } from 'vitest';
import { mergeClaudeSettings, shellWord } from '../../src/integrations/claude-code/setup.js';
import { batonSessionIdFor } from '../../src/integrations/claude-code/session-map.js';
import { currentInvocation } from '../../src/integrations/invocation.js';
import { withSection, agentSection } from '../../src/integrations/agent-section.js';

describe('setup building blocks', () => {
  it('without the baton script on disk, the configuration calls npx of the baton-state package and says why', () => {
    const found = currentInvocation(['/usr/bin/node', '/nonexistent/baton.js'], '/usr/bin/node');
    // Not `npx baton`: that name is an unrelated package on the registry.
    expect(found.words).toEqual(['npx', '--yes', '--package', 'baton-state', 'baton']);
    expect(found.warning).toContain('npx --package baton-state baton');
  });

  it('paths with spaces or quotes stay one shell word', () => {
    expect(shellWord('/opt/baton/dist/bin/baton.js')).toBe('/opt/baton/dist/bin/baton.js');
    expect(shellWord("/home/o'neil/my tools/baton.js")).toBe("'/home/o'\\''neil/my tools/baton.js'");
  });

  it('merging twice gives the same settings; a Baton command inside a user entry is taken out, the rest kept', () => {
    const user = {
      hooks: {
        Stop: [
          {
            hooks: [
              { type: 'command', command: 'say done' },
              { type: 'command', command: '/old/node /old/baton.js hook claude-code Stop' },
            ],
          },
        ],
      },
    };
    const once = mergeClaudeSettings(user, (e) => `/n /b.js hook claude-code ${e}`);
    expect(mergeClaudeSettings(once, (e) => `/n /b.js hook claude-code ${e}`)).toEqual(once);
    expect((once['hooks'] as Record<string, unknown>)['Stop']).toEqual([
      { hooks: [{ type: 'command', command: 'say done' }] },
      { hooks: [{ type: 'command', command: '/n /b.js hook claude-code Stop', timeout: 10 }] },
    ]);
  });

  it('a Claude session maps to one Baton session id per generation', () => {
    expect(batonSessionIdFor('abc', 0)).toBe(batonSessionIdFor('abc', 0));
    expect(batonSessionIdFor('abc', 0)).not.toBe(batonSessionIdFor('abc', 1));
    expect(batonSessionIdFor('abc', 0)).toMatch(/^session_[0-9a-f]{24}$/);
  });

  it('the instructions section is replaced between its markers, appended otherwise', () => {
    const section = agentSection('baton');
    const text = withSection('# Rules\n', section);
    expect(text).toBe(`# Rules\n\n${section}`);
    expect(withSection(text.replace('baton status', 'old'), section)).toBe(text);
  });
});
