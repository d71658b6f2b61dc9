import type { Resolution } from '../../projections/audit/types.js';
import { shellQuote as q } from '../../projections/shell-quote.js';

/**
 * The command line that resolves a finding by hand. Most are `baton` commands; a done WU whose
 * work is not merged is resolved in git itself, and the integration branch by the config file.
 * `<…>` marks the words a person or agent supplies; every name taken from the log or from git is
 * quoted for a POSIX shell.
 */
export function resolveCommand(r: Resolution): string {
  switch (r.kind) {
    case 'takeover_or_release':
      return `baton wu claim ${q(r.wu)} --takeover --reason '<why>'`;
    case 'checkpoint':
      return `baton wu checkpoint ${q(r.wu)} --note '<progress>'`;
    case 'merge':
      return `git checkout ${q(r.into)} && git merge --no-ff ${q(r.branch)}`;
    case 'signal_holder':
      return `baton mem signal '<what changed and why>' --to ${q(r.holder)} --wu ${q(r.wu)}`;
    case 'investigate':
      return `baton audit why ${q(r.wu)}`;
    case 'audit_fix':
      return 'baton audit --fix';
    case 'end_session':
      return `baton session end ${q(r.session)} --status cancelled`;
    case 'answer_signal':
      return `baton mem signal '<answer>' --reply-to ${q(r.signal)} --intent AGREE`;
    case 'flow_status':
      return 'baton flow status';
    case 'flow_update':
      return "baton flow update --gate-result passed --message '<what was done>'";
    case 'restore_stamp':
      return `baton wu done ${q(r.wu)}`;
    case 'show_log':
      return `baton log show --from ${r.from} --to ${r.to}`;
    case 'configure_integration':
      return 'set audit.integration_branch in .baton/config.yaml';
  }
}
