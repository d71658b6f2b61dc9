import type { ClaimActor } from '../../../deciders/claim-holder.js';
import { ownValue } from '../../../projections/own-keys.js';
import { holderName, type Reservation } from '../../../projections/work-units/reservations.js';
import type { WorkUnitsState } from '../../../projections/work-units/state.js';
import { invalidInput } from '../../errors.js';
import { openGeneration } from '../../integrations/claude-code/session-map.js';
import { storeExists } from '../../store/jsonl/layout.js';
import { liveReservations, loadReservationFold, repositoryPathOf, verdictFor } from '../../work-units/reservations.js';
import type { AppContext } from '../context.js';
import * as storeAccess from '../store-access.js';

/**
 * Claude Code's `PreToolUse` hook for the tools that write a file (`Edit`, `Write`, `MultiEdit`,
 * `NotebookEdit`): a write to a path a live claim of another holder reserves is denied, with a
 * reason naming the WU, the holder and how to coordinate; anything else is allowed. The agent is the
 * Baton session derived from Claude Code's `session_id` (session-map.ts), or BATON_SESSION /
 * BATON_AGENT_IDENTITY of the hook's environment. It runs before every edit, so it loads no zod:
 * the compiled validators, the work-unit fold and the reservation rule.
 */
export const WRITE_TOOLS_MATCHER = 'Edit|Write|MultiEdit|NotebookEdit';

export interface PreToolUseInput {
  /** Claude Code's session id. */
  session_id: string;
  /** Where a relative path starts (Claude Code's `cwd`); the workspace when not given. */
  cwd: string | undefined;
  /** `tool_input.file_path` (or `notebook_path`); undefined: nothing to check. */
  file_path: string | undefined;
}

/** The path a write tool's `tool_input` names: `file_path`, or a notebook's `notebook_path`. */
export function toolFilePath(hookJson: string): string | undefined {
  const value = JSON.parse(hookJson) as { tool_input?: unknown };
  const input = value.tool_input;
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as Record<string, unknown>;
  const path = record['file_path'] ?? record['notebook_path'];
  if (path === undefined) return undefined;
  if (typeof path !== 'string' || path.length === 0 || path.length > 4096 || path.includes('\0'))
    throw invalidInput('must be a path of 1–4,096 characters', 'stdin.tool_input.file_path');
  return path;
}

function actingFor(app: AppContext, fold: WorkUnitsState, input: PreToolUseInput): ClaimActor[] {
  // The Baton session of this Claude session, as the work-unit fold knows its sessions.
  const mapped = openGeneration(input.session_id, (id) => (ownValue(fold.sessions, id)?.ended ?? false) !== false);
  const acting: ClaimActor[] = [{ session: mapped, actor: mapped }];
  const session = app.env['BATON_SESSION']?.trim();
  if (session !== undefined && session !== '') acting.push({ session, actor: session });
  const identity = app.env['BATON_AGENT_IDENTITY']?.trim();
  if (identity !== undefined && identity !== '') acting.push({ session: null, actor: identity });
  return acting;
}

function denial(path: string, reservations: readonly Reservation[]): string {
  const held = reservations.map((r) => {
    const who = holderName(r.holder);
    return `${r.wu_id} (reserved by ${r.glob}) is held by ${who}, last sign of life ${r.holder.last_seen}, lease until ${r.holder.lease_until}`;
  });
  const first = reservations[0]!;
  return [
    `Baton: ${path} is reserved by another agent's live claim: ${held.join('; ')}.`,
    `Do not write it now. Coordinate with the holder: baton mem signal --to ${holderName(first.holder)} --wu ${first.wu_id} "I need to change ${path}: …" (then wait for its answer in baton mem inbox), or work on files your own WU reserves.`,
    'The reservation ends when the holder releases or finishes the WU, or its session ends or lapses; `baton guard PATH` shows who holds a path.',
  ].join(' ');
}

/** The reason to deny the write, or undefined to allow it (no workspace, no path, a path outside it, free or yours). */
export async function answerPreToolUse(app: AppContext, input: PreToolUseInput): Promise<string | undefined> {
  if (input.file_path === undefined) return undefined;
  app.useCompiledValidation(storeAccess);
  const workspace = await app.workspace();
  if (!storeExists(workspace, app.env)) return undefined;
  const fold = await loadReservationFold(app);
  const live = liveReservations(fold, app.now);
  if (live.length === 0) return undefined;
  const repoPath = repositoryPathOf(fold, workspace, input.cwd ?? workspace, input.file_path);
  const verdict = verdictFor(fold, live, input.file_path, repoPath, actingFor(app, fold, input));
  if (verdict.status !== 'held') return undefined;
  return denial(
    repoPath ?? input.file_path,
    verdict.reservations.filter((r) => !r.mine),
  );
}
