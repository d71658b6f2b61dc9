import { join, relative, resolve } from 'node:path';
import type { Variant } from '../../events/flow/vocabulary.js';
import { STATE_FILE } from '../../projections/flow/index.js';
import { readIfFile } from '../artifacts/atomic-write.js';
import { ErrorCode } from '../errors.js';
import { readAgentFlowFile } from './agent-flow-file.js';
import { invalidFlowInput, refuse } from './flow-errors.js';

export interface AdoptFile {
  rel: string;
  variant: Variant;
  bytes: Buffer;
}

/**
 * Which Agent Flow state file `flow adopt` takes over: `file` when given (one of the two state
 * files, and present), else the one present, else the active one when both are.
 */
export function chooseAdoptFile(workspace: string, file: string | undefined): AdoptFile {
  const candidates = (Object.entries(STATE_FILE) as [Variant, string][]).map(([variant, rel]) => ({
    variant,
    rel,
    bytes: readIfFile(workspace, join(workspace, rel)),
  }));
  if (file !== undefined) {
    const rel = relative(workspace, resolve(workspace, file)).split('\\').join('/');
    const match = candidates.find((c) => c.rel === rel);
    if (match === undefined) throw invalidFlowInput('file', (name) => `${name} must be ${STATE_FILE.orchestrate} or ${STATE_FILE.team} (got '${file}')`);
    if (match.bytes === undefined) throw invalidFlowInput('file', (name) => `${name}: ${match.rel} does not exist`);
    return { rel: match.rel, variant: match.variant, bytes: match.bytes };
  }
  const present = candidates.filter((c): c is typeof c & { bytes: Buffer } => c.bytes !== undefined);
  if (present.length === 0)
    throw refuse(ErrorCode.INVALID_INPUT, `No Agent Flow state file to adopt: neither ${STATE_FILE.orchestrate} nor ${STATE_FILE.team} exists`);
  if (present.length === 1) return present[0]!;
  const active = present.filter((c) => {
    const read = readAgentFlowFile(c.bytes.toString('utf8'));
    return 'file' in read && read.file.active;
  });
  if (active.length === 1) return active[0]!;
  throw invalidFlowInput('file', (name) => `Both ${STATE_FILE.orchestrate} and ${STATE_FILE.team} exist; name the run to adopt with ${name}`);
}
