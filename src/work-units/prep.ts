import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { evidenceOf, isDone, stallSeconds } from '../../projections/work-units/evidence.js';
import { BatonError, ErrorCode } from '../errors.js';
import { checkWuId, loadWorkUnits, type WorkUnitsEnv } from './env.js';
import { knownWu } from '../../deciders/work-units.js';
import { WorkUnitErrorCode } from './errors.js';
import { loadObserved } from './observe.js';
import type { WorkUnitsState } from '../../projections/work-units/state.js';

/**
 * The work-unit checks of `wu prep` (work-units.md §13) around the coordination signal gate: check 2
 * (claimed, not done, not blocked) before it; checks 4 (contamination) and 5 (prep commands) after.
 */
export interface PrepCheck {
  name: string;
  passed: boolean;
  detail: string;
}

/** `fold`: the work-unit fold the caller already read in its one pass (then nothing is read). */
export async function checkClaimed(env: WorkUnitsEnv, wuId: string, fold?: WorkUnitsState): Promise<PrepCheck> {
  checkWuId(wuId);
  const state = fold ?? (await loadWorkUnits(env)).state;
  const wu = knownWu(state, wuId);
  if (isDone(wu))
    throw new BatonError(ErrorCode.ILLEGAL_TRANSITION, `${wuId} is in the terminal state done; wu prep is not allowed`, { wu_id: wuId, state: 'done' });
  const claimed = wu.lifecycle.state === 'in_progress' || wu.lifecycle.state === 'blocked' || wu.lifecycle.picked_up;
  if (!claimed) throw new BatonError(WorkUnitErrorCode.NOT_CLAIMED, `${wuId} is not claimed (it is ${wu.lifecycle.state}); claim it first`, { wu_id: wuId });
  if (wu.lifecycle.state === 'blocked')
    throw new BatonError(WorkUnitErrorCode.WU_BLOCKED, `${wuId} is blocked${wu.blocked?.reason ? `: ${wu.blocked.reason}` : ''}; unblock it first`, {
      wu_id: wuId,
    });
  return { name: 'claimed', passed: true, detail: `${wuId} is ${wu.lifecycle.state}` };
}

/**
 * Checks 4 and 5: probes, contamination (as if past eligible), then each prep command. `observed`:
 * the fold with the probes' observations already appended and folded in (then nothing is read).
 */
export async function checkWorkspace(env: WorkUnitsEnv, wuId: string, observed?: WorkUnitsState): Promise<PrepCheck[]> {
  const state = observed ?? (await loadObserved(env, { append: true })).state;
  const wu = knownWu(state, wuId);
  const e = evidenceOf(wu, { state, config: env.config, now: env.now, stall_seconds: stallSeconds(env.config) }, { assumePastEligible: true });
  if (e.overlap.value.length > 0) {
    throw new BatonError(
      WorkUnitErrorCode.CONTAMINATED,
      `${wuId}: uncommitted changes in the root checkout overlap its code_paths: ${e.overlap.value.join(', ')}`,
      {
        wu_id: wuId,
        paths: e.overlap.value,
      },
    );
  }
  const checks: PrepCheck[] = [{ name: 'contamination', passed: true, detail: 'no dirty path under the code paths' }];
  const worktree =
    e.worktree_path.value === null ? null : isAbsolute(e.worktree_path.value) ? e.worktree_path.value : resolve(env.workspace, e.worktree_path.value);
  const cwd = worktree !== null && existsSync(worktree) ? worktree : env.workspace;
  for (const command of env.config.prep.commands) {
    const [program, ...args] = command;
    const result = spawnSync(program!, args, { cwd, stdio: 'ignore' });
    const status =
      result.error !== undefined
        ? `failed to start (${result.error.message})`
        : result.status === null
          ? `killed by ${result.signal}`
          : `exit ${result.status}`;
    if (result.error !== undefined || result.status !== 0) {
      throw new BatonError(WorkUnitErrorCode.GATE_FAILED, `prep command ${JSON.stringify(command)} failed: ${status}`, { wu_id: wuId, command, status });
    }
    checks.push({ name: `command: ${command.join(' ')}`, passed: true, detail: 'exit 0' });
  }
  return checks;
}
