import { describe, expect, it } from 'vitest';
import {
  encodeTrailerValue,
  formatAnchorMessage,
  isBadSignature,
  parseAnchorMessage,
  parseRawCommit,
  signatureStatusOf,
  splitCatFileBatch,
  type AnchorHead,
} from '../../src/anchors/anchor-message.js';

/** The anchor's message: what `baton log anchor` writes is what `log verify` reads back, and nothing else passes for one. */
const HASH = 'ab'.repeat(32);
const head: AnchorHead = { seq: 42, hash: HASH, anchored_at: '2026-11-22T09:00:00.000Z', workspace: '.', store: { kind: 'jsonl' } };

describe('the anchor message', () => {
  it('reads back what it writes: subject, body, trailers', () => {
    const message = formatAnchorMessage(head);
    expect(message.split('\n')[0]).toBe(`baton anchor seq=42 hash=${HASH}`);
    expect(message).toContain(
      '\nBaton-Seq: 42\nBaton-Hash: ' + HASH + '\nBaton-Anchored-At: 2026-11-22T09:00:00.000Z\nBaton-Workspace: .\nBaton-Store: jsonl\n',
    );
    expect(parseAnchorMessage(message)).toEqual({ ok: true, head });
  });

  it('keeps a store id and an odd workspace path (spaces, non-ASCII, a newline) exactly', () => {
    const odd: AnchorHead = { ...head, workspace: 'teams/naïve café\nx', store: { kind: 'postgres', id: 'team-1' } };
    const message = formatAnchorMessage(odd);
    expect(message).toContain('Baton-Workspace: "teams/naïve café\\nx"');
    expect(message).toContain('Baton-Store-Id: team-1');
    expect(parseAnchorMessage(message)).toEqual({ ok: true, head: odd });
    expect(encodeTrailerValue('sub/ws')).toBe('sub/ws');
    expect(encodeTrailerValue(' lead')).toBe('" lead"');
    expect(encodeTrailerValue('"quoted')).toBe('"\\"quoted"');
  });

  it('refuses a message that is no anchor, or whose subject and trailers disagree', () => {
    const good = formatAnchorMessage(head);
    const cases: [string, string][] = [
      ['not an anchor\n', 'subject'],
      [good.replace('Baton-Seq: 42', 'Baton-Seq: 43'), 'Baton-Seq'],
      [good.replace(`Baton-Hash: ${HASH}`, `Baton-Hash: ${'cd'.repeat(32)}`), 'Baton-Hash'],
      [good.replace('Baton-Anchored-At: 2026-11-22T09:00:00.000Z', 'Baton-Anchored-At: yesterday'), 'Baton-Anchored-At'],
      [good.replace('Baton-Store: jsonl\n', ''), 'missing Baton-Store'],
      [good.replace('Baton-Store: jsonl\n', 'Baton-Store: jsonl\nBaton-Store: postgres\n'), 'twice'],
      [good.replace('Baton-Workspace: .', 'Baton-Workspace: "unterminated'), 'JSON'],
      [good.replace('seq=42', 'seq=0').replace('Baton-Seq: 42', 'Baton-Seq: 0'), 'Baton-Seq'],
    ];
    for (const [message, problem] of cases) {
      const parsed = parseAnchorMessage(message);
      expect(parsed.ok, message).toBe(false);
      if (!parsed.ok) expect(parsed.problem).toContain(problem);
    }
  });

  it('reads the trailers of the last paragraph only', () => {
    const message = formatAnchorMessage(head).replace('The head of the Baton', 'Baton-Seq: 7\nThe head of the Baton');
    expect(parseAnchorMessage(message)).toEqual({ ok: true, head });
  });
});

describe('raw commits and signatures', () => {
  const raw = [
    `tree ${'4b825dc642cb6eb9a060e54bf8d69288fbee4904'}`,
    `parent ${'1'.repeat(40)}`,
    'author A <a@b.c> 1 +0000',
    'committer A <a@b.c> 1 +0000',
    'gpgsig -----BEGIN SSH SIGNATURE-----',
    ' AAAA',
    ' -----END SSH SIGNATURE-----',
    '',
    'baton anchor seq=1 hash=x',
    '',
  ].join('\n');

  it('parses the header fields and the message of a raw commit', () => {
    expect(parseRawCommit(raw)).toEqual({
      tree: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
      parents: ['1'.repeat(40)],
      signed: true,
      message: 'baton anchor seq=1 hash=x\n',
    });
    expect(parseRawCommit(raw.replace(/gpgsig[^]*SIGNATURE-----\n/, '')).signed).toBe(false);
  });

  it('splits git cat-file --batch output by byte sizes (multi-byte text included)', () => {
    const one = Buffer.from('tree x\n\ncafé ✓\n');
    const two = Buffer.from('tree y\n\nplain\n');
    const output = Buffer.concat([
      Buffer.from(`${'a'.repeat(40)} commit ${one.length}\n`),
      one,
      Buffer.from('\n'),
      Buffer.from(`${'b'.repeat(40)} missing\n`),
      Buffer.from(`${'c'.repeat(40)} commit ${two.length}\n`),
      two,
      Buffer.from('\n'),
    ]);
    const objects = splitCatFileBatch(output);
    expect(objects.map((o) => [o.id[0], o.type, o.content.toString('utf8')])).toEqual([
      ['a', 'commit', 'tree x\n\ncafé ✓\n'],
      ['c', 'commit', 'tree y\n\nplain\n'],
    ]);
  });

  it("maps git's %G? verdicts; only bad and revoked are findings", () => {
    expect(['G', 'U', 'B', 'X', 'Y', 'R', 'E', 'N'].map(signatureStatusOf)).toEqual([
      'good',
      'untrusted',
      'bad',
      'expired',
      'expired',
      'revoked',
      'unverifiable',
      'unverifiable',
    ]);
    expect(['good', 'untrusted', 'bad', 'expired', 'revoked', 'unverifiable'].filter((s) => isBadSignature(s as never))).toEqual(['bad', 'revoked']);
  });
});
