import { z } from 'zod';
import { agentIdentity, CLIENT_TYPES, lane, optionalText, role, wuId } from '../../../events/coordination/identities.js';
import { parseInput } from '../../coordination/send.js';
import { startSession } from '../../coordination/sessions.js';
import type { CommandContext } from '../context.js';
import { coordinationEnv } from '../coordination-env.js';
import { emitSession } from './session-envelope.js';

const StartFlags = z.strictObject({
  agentIdentity: agentIdentity.optional(),
  role: role.optional(),
  wu: wuId.optional(),
  lane: lane.optional(),
  goal: optionalText(2000).optional(),
  branch: optionalText(250).optional(),
  worktree: optionalText(1000).optional(),
  client: z.enum(CLIENT_TYPES, `must be one of ${CLIENT_TYPES.join(', ')}`).optional(),
});
const FLAGS: Record<string, string> = {
  agentIdentity: '--agent-identity', role: '--role', wu: '--wu', lane: '--lane', goal: '--goal', branch: '--branch', worktree: '--worktree', client: '--client',
};

export async function sessionStart(ctx: CommandContext, options: Record<string, string | undefined>): Promise<void> {
  const picked = Object.fromEntries(Object.keys(FLAGS).filter((k) => options[k] !== undefined).map((k) => [k, options[k]]));
  const flags = parseInput(StartFlags, picked, FLAGS);
  const env = await coordinationEnv(ctx, { actAsSession: false });
  const result = await startSession(env, {
    agent_identity: flags.agentIdentity,
    role: flags.role,
    wu_id: flags.wu,
    lane: flags.lane,
    goal: flags.goal,
    branch: flags.branch,
    worktree: flags.worktree,
    client_type: flags.client,
  });
  emitSession(ctx, env.workspace, result.session, result.status, [`export BATON_SESSION=${result.session.session_id}`]);
}
