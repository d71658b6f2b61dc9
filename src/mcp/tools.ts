import { z } from 'zod';
import { ORCHESTRATION_STATES } from '../../events/work-units/terms.js';

/**
 * The tools `baton mcp` offers: few, with terse schemas, because every MCP client pastes every tool
 * schema into the model's context on every turn. Together they serialize to at most 8,000
 * characters (~2,000 tokens); test/mcp/mcp-tools.test.ts holds that. Each tool runs the
 * application command the CLI command of the same name runs (src/app/commands/), and returns its envelope.
 */
const wu = z.string().describe('work unit id, e.g. WU-12');

/** What the server tells a client about itself when it connects (the MCP `instructions`), kept short. */
export const MCP_INSTRUCTIONS = [
  "Baton is this project's shared state for multi-agent coding work: work units (WUs), sessions, tasks, signals.",
  'This server acts as one Baton session (BATON_SESSION, or one it starts on your first call).',
  'Start with `status` (your last stopping point and next action) and `wu_list` (state=eligible: ready to claim).',
  '`claim` a WU, `checkpoint` as you go (note, next_steps), then `finish` it, `return` it to the coordinator, or `release` it.',
  'Talk to the agents in the `roster` with `send_signal`; read yours with `inbox`.',
  "Before editing a file, `check_paths` says whether another agent's claim reserves it.",
].join(' ');

export const MCP_TOOLS = {
  status: {
    description: 'Your last stopping point: tasks, next action, unread signals, initiatives (= baton status).',
    input: {},
  },
  wu_list: {
    description: 'Work units with their orchestration state (= baton wu list).',
    input: {
      state: z.string().optional().describe(ORCHESTRATION_STATES.join('|')),
      initiative: z.string().optional().describe('INIT-1 or its slug'),
    },
  },
  roster: {
    description: 'Live sessions: who works on which WU (= baton mem roster).',
    input: {},
  },
  claim: {
    description: 'Claim a work unit for this session (= baton wu claim).',
    input: {
      wu,
      mode: z.string().optional().describe('worktree|worktree-pr|branch-only|branch-pr'),
      takeover: z.boolean().optional().describe("take over a lapsed holder's claim; needs reason"),
      force: z.boolean().optional().describe('despite unfinished dependencies or a full lane; needs reason'),
      reason: z.string().optional().describe('why (takeover, force)'),
      paths: z.array(z.string()).optional().describe('globs to reserve besides its code_paths'),
    },
  },
  checkpoint: {
    description: 'Record progress on your claimed work unit (= baton wu checkpoint).',
    input: { wu, note: z.string().describe('what changed'), progress: z.string().optional(), next_steps: z.string().optional() },
  },
  finish: {
    description: 'Finish a claimed work unit: done stamp (= baton wu done).',
    input: { wu },
  },
  return: {
    description: 'Hand your claimed work unit back, your part finished (= baton wu return).',
    input: { wu, note: z.string().optional() },
  },
  release: {
    description: 'Release a claim: the work unit is ready for anyone again (= baton wu release).',
    input: { wu, reason: z.string().optional() },
  },
  task_create: {
    description: 'Create a task of this session (= baton task create).',
    input: { label: z.string(), state: z.string().optional().describe('queued|running'), parent: z.string().optional().describe('parent task id') },
  },
  task_transition: {
    description: 'Move a task to a new state (= baton task transition).',
    input: {
      task: z.string().describe('task id'),
      state: z.string().describe('queued|running|waiting_for_user|blocked|completed|failed|cancelled|superseded'),
      reason: z.string().optional(),
      summary: z.string().optional().describe('terminal states: result'),
    },
  },
  send_signal: {
    description: 'Send a signal to other agents (= baton mem signal).',
    input: {
      message: z.string(),
      to: z.string().optional().describe('comma-separated session ids, identities or display names; none = broadcast'),
      intent: z.string().optional().describe('INFO|PROPOSE|COUNTER|AGREE|REJECT'),
      reply_to: z.string().optional().describe('signal id answered'),
      requires_ack: z.boolean().optional(),
      wu: z.string().optional(),
    },
  },
  inbox: {
    description: 'Your signals, unread only unless all=true; marks them read unless mark=false (= baton mem inbox).',
    input: { all: z.boolean().optional(), mark: z.boolean().optional() },
  },
  check_paths: {
    description: "Before editing: who holds each path (another live claim's reservation = don't edit; = baton guard).",
    input: { paths: z.array(z.string()).describe('repo-relative or absolute') },
  },
  orchestrate_status: {
    description: "An initiative's work units and next safe actions (= baton orchestrate status).",
    input: { initiative: z.string().describe('initiative id, e.g. INIT-1') },
  },
  audit: {
    description: 'Where the log and the repository disagree: findings, evidence, the command resolving each (= baton audit; read-only).',
    input: { fail_on: z.string().optional().describe('warn|error') },
  },
} as const;

export type McpToolName = keyof typeof MCP_TOOLS;
