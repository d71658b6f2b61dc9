import { describe, expect, it } from 'vitest';
import { decodeTime } from 'ulid';
import { nextUlid } from '../src/store/event-id.js';

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

describe('nextUlid', () => {
  it('makes valid ULIDs carrying the given time, strictly increasing within one millisecond and when the clock steps back', () => {
    const t = Date.UTC(2030, 0, 2, 3, 4, 5, 6);
    const ids = [nextUlid(t), ...Array.from({ length: 2000 }, () => nextUlid(t)), nextUlid(t - 5000), nextUlid(t + 1), nextUlid(t + 1)];
    for (const id of ids) expect(id).toMatch(ULID);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(decodeTime(ids[0]!)).toBe(t);
    // A clock that stepped back keeps the later time (the monotonic rule), a new millisecond its own.
    expect(decodeTime(ids[2001]!)).toBe(t);
    expect(decodeTime(ids.at(-1)!)).toBe(t + 1);
  });

  it('draws fresh randomness for each new millisecond', () => {
    const a = nextUlid(Date.UTC(2031, 0, 1));
    const b = nextUlid(Date.UTC(2031, 0, 1) + 1);
    expect(a.slice(10)).not.toBe(b.slice(10));
  });
});
