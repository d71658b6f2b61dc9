import { isTerminalYamlStatus } from '../../events/work-units/terms.js';
import type { IntegrityFinding, Mark, WorkUnitsState, WuRecord } from './state.js';

/**
 * LumenFlow's consistency check between stamps and WU YAML, as integrity findings derived
 * from the fold: a stamp file says done while the WU's YAML says otherwise; or, once a LumenFlow
 * repository was imported (its stamp folder is known and watched), its YAML says `done` with no
 * stamp. Baton's own `wu.stamped` is judged by STAMP_CONTRADICTED in `wu explain` instead.
 */
export function stampYamlFindings(state: WorkUnitsState, wu: WuRecord): IntegrityFinding[] {
  if (wu.stamped !== null) return wu.findings;
  const status = wu.yaml_fields.status;
  const statusMark = wu.def_seq['status'];
  if (status === undefined || statusMark === undefined) return wu.findings;
  const stamp = wu.stamp_file;
  const stampDone = stamp !== null && stamp.present && stamp.valid;
  if (stampDone && !isTerminalYamlStatus(status)) {
    return [...wu.findings, finding(later(stamp, statusMark), 'STAMP_YAML_MISMATCH', `${wu.wu_id}: stamp ${stamp.path} says done, its YAML says ${status}`)];
  }
  if (!stampDone && status === 'done' && state.recorded_settings !== undefined) {
    return [
      ...wu.findings,
      finding(statusMark, 'STAMP_MISSING', `${wu.wu_id}: its YAML says done but ${state.recorded_settings.stamps_dir}/${wu.wu_id}.done does not exist`),
    ];
  }
  return wu.findings;
}

function later(a: Mark, b: Mark): Mark {
  return a.seq > b.seq ? a : b;
}

function finding(m: Mark, code: string, message: string): IntegrityFinding {
  return { seq: m.seq, stream: m.stream, type: m.type, code, message };
}
