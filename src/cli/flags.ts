import type { ExpectedVersion } from '../store/contract.js';
import { invalidInput } from '../errors.js';

/** Flag parsers: each failure names the flag and the rule (INVALID_INPUT, exit 2). */

export function parsePositiveInt(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw invalidInput(`must be a whole number ≥ 1, got "${value}"`, flag);
  }
  return Number(value);
}

export function parseCount(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw invalidInput(`must be a whole number ≥ 0, got "${value}"`, flag);
  return Number(value);
}

export function parseExpectedVersion(value: string): ExpectedVersion {
  if (value === 'no_stream' || value === 'stream_exists') return value;
  if (/^\d+$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
  throw invalidInput(`must be a whole number ≥ 0, "no_stream" or "stream_exists", got "${value}"`, '--expected-version');
}

export function parseJsonObject(value: string, flag: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw invalidInput(`is not valid JSON (${(error as Error).message})`, flag);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidInput('must be a JSON object', flag);
  return parsed as Record<string, unknown>;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export function parseIsoTime(value: string, flag: string): string {
  if (!ISO.test(value) || Number.isNaN(Date.parse(value))) throw invalidInput(`must be an ISO-8601 time like 2026-01-31T12:00:00Z, got "${value}"`, flag);
  return new Date(value).toISOString();
}
