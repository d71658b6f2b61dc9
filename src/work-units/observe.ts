import type { ProposedEvent } from '../../deciders/decision.js';
import { decideLapses } from '../../deciders/sessions.js';
import { applyWorkUnits, type WorkUnitsState } from '../../projections/work-units/state.js';
import { ConflictError } from '../errors.js';
import { probeWorkUnits } from '../probes/work-units.js';
import { loadWorkUnits, requireLiveActingSession, type WorkUnitsEnv } from './env.js';
import { workspaceLayout } from '../store/jsonl/layout.js';
import type { prepareWuYaml } from './yaml-probe.js';

/** What the YAML probe compares with a fold (prepared before the log is read), or undefined when it is off. */
export type YamlComparison = Awaited<ReturnType<typeof prepareWuYaml>> | undefined;

/**
 * The YAML probe first (§4): the same comparison as `wu import`, a bad file only a warning, said
 * once (yaml-probe.ts caches what each file said; `yaml` loads only when a file must be parsed).
 * Its files are listed and read before the log is folded, and compared with the fold after.
 */
export async function prepareObservation(env: WorkUnitsEnv): Promise<YamlComparison> {
  const yamlPaths = env.config.probes.enabled ? env.config.probes.wu_yaml_paths : [];
  if (yamlPaths.length === 0) return undefined;
  return (await import('./yaml-probe.js')).prepareWuYaml(env.workspace, env.cacheDir ?? workspaceLayout(env.workspace).cache, yamlPaths);
}

/**
 * Fold, then probe (§5.2): observations that differ from the log are appended in one batch and
 * folded in — or, for a dry run (`orchestrate plan`), only folded into the in-memory state.
 */
export async function loadObserved(env: WorkUnitsEnv, options: { append: boolean }): Promise<{ state: WorkUnitsState; seq: number; observed: number }> {
  const compareYaml = await prepareObservation(env);
  const { state, seq } = await loadWorkUnits(env);
  return observeInto(env, { state, seq }, compareYaml, options);
}

/** The probes over a fold already read (`state` at `seq`, changed in place): no read of the log. */
export async function observeInto(
  env: WorkUnitsEnv,
  { state, seq }: { state: WorkUnitsState; seq: number },
  compareYaml: YamlComparison,
  options: { append: boolean },
): Promise<{ state: WorkUnitsState; seq: number; observed: number }> {
  const yaml = compareYaml === undefined ? { events: [], warnings: [] } : await compareYaml(state);
  for (const warning of yaml.warnings) env.warn?.(`YAML probe skipped ${warning}`);
  const proposed = [...yaml.events, ...probeWorkUnits(env.workspace, state, env.config, env.now)];
  if (options.append) return appendObserved(env, { state, seq }, proposed);
  let next = seq;
  for (const e of proposed) {
    next += 1;
    // Decoded as the log would hand it back, so a probe's event the catalog refuses is a finding here too.
    applyWorkUnits(
      state,
      env.catalog.toBatonEvent({
        v: 1,
        seq: next,
        id: `dry-${next}`,
        type: e.type,
        stream: e.stream,
        at: env.now,
        actor: env.actor,
        data: e.data,
        prev: '',
        hash: '',
      }),
    );
  }
  return { state, seq: next, observed: proposed.length };
}

/**
 * The observations appended and folded in, in one batch with the lapses the fold shows and has not
 * recorded yet (deciders/sessions.ts `decideLapses`). The observations stay a direct append: one
 * records what the probes saw on disk, not a rule over the fold, so a later event cannot make it
 * wrong. A lapse expects its session stream's version: when another command recorded it (or the
 * session came back) first, the observations are appended alone and the next command decides again.
 */
async function appendObserved(
  env: WorkUnitsEnv,
  { state, seq }: { state: WorkUnitsState; seq: number },
  proposed: readonly ProposedEvent[],
): Promise<{ state: WorkUnitsState; seq: number; observed: number }> {
  const lapses = decideLapses(state, env.now, env.actor);
  const batch = [...(lapses?.events ?? []), ...proposed];
  if (batch.length === 0) return { state, seq, observed: 0 };
  requireLiveActingSession(env, state, batch);
  const stamped = (events: readonly ProposedEvent[]) => events.map((e) => ({ ...e, actor: env.actor, at: env.now }));
  let result;
  try {
    result = await env.store.append(stamped(batch), lapses === null ? {} : { expectedVersion: lapses.expected });
  } catch (error) {
    if (!(error instanceof ConflictError) || lapses === null) throw error;
    if (proposed.length === 0) return { state, seq, observed: 0 };
    result = await env.store.append(stamped(proposed));
  }
  for (const stored of result.events) applyWorkUnits(state, env.catalog.upcast(stored));
  return { state, seq: result.events.at(-1)?.seq ?? seq, observed: result.events.length };
}
