import { z } from 'zod';

/**
 * The tools `baton mcp` offers: few, with terse schemas, because every MCP client pastes every tool
 * schema into the model's context on every turn. Together they serialize to well under 8,000
 * characters (~2,000 tokens); test/mcp/mcp-server.test.ts holds that. Each tool runs the
 * application command the CLI command of the same name runs (src/app/commands/), and returns its envelope.
 */
const wu = z.string().describe('work unit id, e.g. WU-12');

export const MCP_TOOLS = {
  status: {
    description: 'Your last stopping point: tasks, next action, unread signals, initiatives (= baton status).',
    input: {},
  },
  claim: {
    description: 'Claim a work unit for this session (= baton wu claim).',
    input: { wu, mode: z.string().optional().describe('worktree|worktree-pr|branch-only|branch-pr') },
  },
  checkpoint: {
    description: 'Record progress on your claimed work unit (= baton wu checkpoint).',
    input: { wu, note: z.string().describe('what changed'), progress: z.string().optional(), next_steps: z.string().optional() },
  },
  finish: {
    description: 'Finish a claimed work unit: done stamp (= baton wu done).',
    input: { wu },
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
  orchestrate_status: {
    description: "An initiative's work units and next safe actions (= baton orchestrate status).",
    input: { initiative: z.string().describe('initiative id, e.g. INIT-1') },
  },
} as const;

export type McpToolName = keyof typeof MCP_TOOLS;
