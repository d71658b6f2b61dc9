import { execFile } from 'node:child_process';
import { inspect, isDeepStrictEqual, promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { builtInCatalog } from '../events/builtin-catalog.js';
import { INVALID, type CompiledSchema } from '../events/compiled.js';
import { A2A_SIGNAL_V1_FIELDS } from '../events/coordination/signal-records.js';
import { A2ASignalV1 } from '../events/coordination/signal.js';
import type { StoredEvent } from '../events/envelope.js';
import { ALL_EVENT_DEFINITIONS, createCatalog } from '../events/index.js';
import { COMPILED_EVENT_TYPES, UPCASTERS } from '../events/validators.generated.js';
import { CLAIMED_MODES } from '../events/work-units/vocabulary.js';
import { eventTargetsBeyond, OUTPUTS } from '../scripts/generate-validators.js';

/**
 * The compiled validators (scripts/generate-validators.ts) against the zod schemas they were
 * compiled from: the generated files are current, and on random valid and invalid inputs each
 * compiled validator accepts exactly what its schema accepts, with zod's output (same values,
 * same key order). CompiledEventCatalog answers like createCatalog().
 */
const root = new URL('..', import.meta.url);
const exec = promisify(execFile);

const T = '2026-04-17T10:00:00.000Z';
const SIGNAL = {
  schema_version: 'A2A.V1',
  signal_id: 'sig-01hx0000000000',
  sender_identity: 'session_alpha',
  recipients: ['agent:beta', 'session_gamma'],
  target_agent: 'agent:beta',
  thread_id: 'thread-01hx',
  intent: 'PROPOSE',
  interrupt_class: 'priority',
  requires_ack: true,
  message: 'Approve boundary?',
  origin: 'local',
  wu_id: 'WU-12',
  initiative: 'INIT-3',
  lane: 'Core',
  role: 'reviewer',
  idempotency_key: 'k-1',
  workspace_id: 'ws-1',
  reply_to: 'sig-01hw0000000000',
  created_at: T,
  sender_session_id: 'session_alpha',
};
const BROADCAST = {
  schema_version: 'A2A.V1',
  signal_id: 'sig-abcd',
  sender_identity: 'system',
  recipients: [],
  thread_id: 'sig-abcd',
  intent: 'INFO',
  interrupt_class: 'advisory',
  requires_ack: false,
  message: ' lane freeze ',
  origin: 'local',
  created_at: '2026-04-17T10:00:00Z',
  sender_session_id: null,
};
const LEGACY = { id: 'sig-0001', sender: 'agent:a', target_agent: 'agent:b', message: 'hi', created_at: T };
const RECEIPT = {
  signal_id: 'sig-abcd',
  reader_identity: 'agent:b',
  read_at: T,
  delivery_state: 'delivered',
  thread_id: 'sig-abcd',
  session_id: null,
  via: 'inbox',
  cause_signal_id: null,
};

const MINIMAL_STATUS = {
  v: 1,
  type: 'orchestration_status',
  generated_at: '2026-04-17T10:00:00.000Z',
  generatedAt: '2026-04-17T10:00:00.000Z',
  installDir: '/w',
  storePath: '/w/.baton/log',
  storeExists: false,
  lastStoppingPoint: {
    generatedAt: 0,
    currentSessionId: null,
    currentGoal: null,
    currentBranch: null,
    currentWorktree: null,
    activeTasks: [],
    queuedTasks: [],
    stoppedTasks: [],
    recentlyCompletedTasks: [],
    relevantOwnership: [],
    pendingChoices: [],
    pendingMcpActions: [],
    pendingManualVerifications: [],
    nextAction: {
      kind: 'none',
      description: 'Nothing to resume.',
      command: [],
    },
    resumeCommand: '',
  },
  baton: {
    scope_session_id: null,
    current_session_status: null,
    initiatives: [],
    unread_signals: {
      reader: null,
      count: 0,
    },
    integrity_finding_count: 0,
    integrity_findings: [],
    held_work_units: [],
  },
};
/** A real `baton status` envelope (ids and folders made neutral). */
const SEED_STATUS = {
  v: 1,
  type: 'orchestration_status',
  generated_at: '2026-04-17T10:00:00.000Z',
  generatedAt: '2026-04-17T10:00:00.000Z',
  installDir: '/w',
  storePath: '/w/.baton/log',
  storeExists: true,
  lastStoppingPoint: {
    generatedAt: 1776420000000,
    currentSessionId: 'session_a1',
    currentGoal: 'ship the release',
    currentBranch: null,
    currentWorktree: null,
    activeTasks: [
      {
        id: 'task_cb231e6bb59202286b9ef891',
        sessionId: 'session_a1',
        label: 'run the suite',
        state: 'waiting_for_user',
        ownership: [
          {
            kind: 'branch',
            name: 'lane/core/wu-1',
            remote: 'origin',
          },
          {
            kind: 'pull_request',
            number: 12,
            repo: 'acme/app',
            url: 'https://github.com/acme/app/pull/12',
            state: 'open',
          },
        ],
        subagentKind: null,
        createdAt: 1795619085647,
        updatedAt: 1795619088507,
        startedAt: 1795619085647,
        waitingFor: {
          id: 'cp-1',
          kind: 'manual_verification',
          summary: 'check the staging run',
          enteredAt: 1795619088507,
        },
      },
      {
        id: 'task_f944309ea8a2143a620ec42f',
        sessionId: 'session_a1',
        label: 'write the migration',
        state: 'blocked',
        ownership: [],
        subagentKind: null,
        createdAt: 1795619085234,
        updatedAt: 1795619087947,
        startedAt: 1795619085234,
        blockedReason: 'waiting for the schema review',
      },
      {
        id: 'task_e5f917692e0a013c9e32f2b4',
        sessionId: 'session_a1',
        label: 'update the docs',
        state: 'running',
        ownership: [],
        subagentKind: null,
        createdAt: 1795619086876,
        updatedAt: 1795619086876,
        startedAt: 1795619086876,
      },
      {
        id: 'task_4093f0aff57cf0fd791551e9',
        sessionId: 'session_a1',
        label: 'review the diff',
        state: 'running',
        ownership: [],
        subagentKind: null,
        createdAt: 1795619086233,
        updatedAt: 1795619086233,
        startedAt: 1795619086233,
      },
    ],
    queuedTasks: [],
    stoppedTasks: [],
    recentlyCompletedTasks: [
      {
        id: 'task_bedf8721a543165dc739cbf7',
        sessionId: 'session_a1',
        label: 'scan the repo',
        state: 'completed',
        ownership: [],
        subagentKind: null,
        createdAt: 1795619084115,
        updatedAt: 1795619087329,
        startedAt: 1795619084115,
        result: {
          outcome: 'completed',
          summary: 'scanned',
          finishedAt: 1795619087329,
        },
      },
    ],
    relevantOwnership: [
      {
        kind: 'worktree',
        path: 'worktrees/wu-1',
        branch: 'lane/core/wu-1',
      },
      {
        kind: 'file',
        path: 'src/a.ts',
      },
    ],
    pendingChoices: [],
    pendingMcpActions: [],
    pendingManualVerifications: [
      {
        id: 'cp-1',
        kind: 'manual_verification',
        summary: 'check the staging run',
        enteredAt: 1795619088507,
      },
    ],
    nextAction: {
      kind: 'await_verification',
      description: 'A task is waiting for manual verification: check the staging run.',
      command: ['baton', 'task', 'task_cb231e6bb59202286b9ef891', '--dir', '/tmp/perfwork/st100k'],
    },
    resumeCommand: 'baton task task_cb231e6bb59202286b9ef891 --dir /tmp/perfwork/st100k',
  },
  baton: {
    scope_session_id: 'session_a1',
    current_session_status: 'active',
    initiatives: [
      {
        initiative: 'INIT-1',
        title: 'Release',
        blocked_by_integrity: false,
        next_safe_actions: [
          {
            type: 'launch_wu',
            wu_id: 'WU-1',
            reason: 'Ready to launch.',
            logical_wave: 0,
          },
          {
            type: 'launch_wu',
            wu_id: 'WU-3',
            reason: 'Ready to launch.',
            logical_wave: 0,
          },
          {
            type: 'wait',
            wu_id: 'WU-2',
            reason: 'Waiting for WU-1 to complete.',
            logical_wave: 1,
          },
        ],
      },
    ],
    unread_signals: {
      reader: 'bench:agent:1',
      count: 0,
    },
    integrity_finding_count: 0,
    integrity_findings: [],
    held_work_units: [],
  },
};

/** Valid inputs per compiled target; mutations of them explore the invalid side. */
const SEEDS: Record<string, unknown[]> = {
  VerifiedPrefixSchema: [
    { version: 1, segments: [] },
    {
      version: 1,
      segments: [
        {
          name: '000000000001.jsonl',
          ino: '1234567',
          size: '4096',
          mtime_ns: '1795677963683000000',
          ctime_ns: '1795677963683000000',
          last_seq: 10,
          last_hash: 'a'.repeat(64),
        },
        { name: '000000000011.jsonl', ino: '1234568', size: '0', mtime_ns: '1', ctime_ns: '2', last_seq: 10, last_hash: 'a'.repeat(64) },
      ],
    },
  ],
  StoredEventSchema: [
    {
      v: 1,
      seq: 1,
      id: '01JZ0000000000000000000000',
      type: 'note.recorded',
      stream: 'note/ops',
      at: T,
      actor: 'system',
      data: { text: 'hi' },
      prev: '0'.repeat(64),
      hash: 'a'.repeat(64),
    },
    {
      v: 1,
      seq: 7,
      id: 'e7',
      type: 'wu.claimed',
      stream: 'wu/WU-1',
      at: T,
      actor: 'session_x',
      data: { a: [1] },
      idempotency_key: 'k-1',
      batch_end: 8,
      prev: 'b'.repeat(64),
      hash: 'c'.repeat(64),
    },
  ],
  // Event payloads compiled for the catalog (every type): recorded by the demo and the CLI, and by hand.
  FlowStartedData: [
    {
      deep_dive: { available: false, generated: null, requested: false, scope: null, using: false },
      flow_id: 'flow_9f8bbd8d447f59ba8e894b78',
      max_iterations: 3,
      mode: 'team',
      task: 'Add user authentication with JWT tokens',
      team_available: true,
      variant: 'team',
    },
    {
      adopted_from: {
        file: '.claude/orchestration.local.md',
        sha256: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
        started_at: '2024-01-15T10:30:00.000Z',
      },
      deep_dive: { available: false, generated: null, requested: false, scope: null, using: false },
      fields: {
        codex_divergence_rounds: 1,
        task_complexity: 'complex',
        report_requested: false,
        intent: { goal: 'ship', description: '', actions: '', constraints: '', assumptions: '' },
        graph: { available: false, path: '', generated: '', nodes: 0, edges: 0, communities: 0 },
        personal_kb: { available: false, path: '', graph_path: '', generated: '', nodes: 0, edges: 0 },
        codex: { available: true, binary: 'codex', auth_present: true },
        agentsview: { available: false, binary: '', archive_reachable: false },
      },
      flow_id: 'flow_9f8bbd8d447f59ba8e894b78',
      iteration: 2,
      max_iterations: 10,
      mode: 'sequential',
      task: 'Add login',
      team_available: null,
      variant: 'orchestrate',
    },
  ],
  GateRecordedData: [
    { agent: 'Riko', flow_id: 'flow_9f8bbd8d447f59ba8e894b78', iteration: 1, message: 'Found 5 files', phase: 'exploration', status: 'passed' },
    {
      agent: 'Lawliet',
      flow_id: 'flow_9f8bbd8d447f59ba8e894b78',
      iteration: 1,
      occurred_at: '2024-01-15T10:50:00.000Z',
      phase: 'review',
      status: 'failed',
    },
    { agent: 'Loid', flow_id: 'flow_9f8bbd8d447f59ba8e894b78', iteration: 2, phase: 'implementation', status: 'passed' },
  ],
  PhaseChangedData: [
    { flow_id: 'flow_9f8bbd8d447f59ba8e894b78', from: 'exploration', iteration: 1, to: 'planning' },
    { flow_id: 'flow_9f8bbd8d447f59ba8e894b78', from: 'implementation', iteration: 2, to: 'review_verification' },
  ],
  IterationStartedData: [{ failed_phase: 'review_verification', flow_id: 'flow_9f8bbd8d447f59ba8e894b78', iteration: 2 }],
  GroupStartedData: [
    { flow_id: 'flow_9f8bbd8d447f59ba8e894b78', group: 'review_verification', iteration: 1 },
    { flow_id: 'flow_9f8bbd8d447f59ba8e894b78', group: 'review_verification', iteration: 2 },
  ],
  TeammateRecordedData: [
    {
      agent: 'Alphonse',
      flow_id: 'flow_9f8bbd8d447f59ba8e894b78',
      group: 'review_verification',
      result: 'FAILED: 3 tests failing',
      status: 'failed',
      teammate: 'verification',
    },
    {
      agent: 'Alphonse',
      flow_id: 'flow_9f8bbd8d447f59ba8e894b78',
      group: 'review_verification',
      result: 'VERIFIED',
      status: 'passed',
      teammate: 'verification',
    },
  ],
  GroupMergedData: [
    {
      all_passed: false,
      failed_phases: ['verification'],
      flow_id: 'flow_9f8bbd8d447f59ba8e894b78',
      group: 'review_verification',
      iteration: 1,
      summary: '1 sub-phase(s) failed: verification',
    },
    {
      all_passed: true,
      failed_phases: [],
      flow_id: 'flow_9f8bbd8d447f59ba8e894b78',
      group: 'review_verification',
      iteration: 2,
      summary: 'All sub-phases passed',
    },
  ],
  FlowCompletedData: [
    { agent: 'Orchestrator', ended_in_phase: 'review_verification', flow_id: 'flow_9f8bbd8d447f59ba8e894b78', message: 'All phases completed successfully' },
  ],
  FlowAbortedData: [{ ended_in_phase: 'exploration', flow_id: 'flow_89a73af176a3ed5d42c58d8c', reason: 'changed plans' }],
  ModeChangedData: [{ flow_id: 'flow_161ae82206bd098cde9c9a52', from: 'team', to: 'sequential' }],
  FieldsSetData: [
    { fields: { task_complexity: 'complex', intent: { goal: 'ship login' }, codex_divergence_rounds: 2 }, flow_id: 'flow_9f8bbd8d447f59ba8e894b78' },
    {
      fields: { report_requested: true, agentsview: { available: true, binary: '/usr/bin/agentsview', archive_reachable: false, reason: 'offline' } },
      flow_id: 'flow_9f8bbd8d447f59ba8e894b78',
    },
  ],
  FlowObservedData: [
    {
      file: '.claude/orchestration.local.md',
      flow_id: 'flow_9f8bbd8d447f59ba8e894b78',
      keys: ['current_phase', 'gates.exploration.status'],
      sha256: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    },
  ],
  MessageLoggedData: [
    { agent: 'Loid', flow_id: 'flow_9f8bbd8d447f59ba8e894b78', iteration: 1, message: 'Completed step 3 of 5', phase: 'implementation' },
    { flow_id: 'flow_9f8bbd8d447f59ba8e894b78', iteration: 2, message: 'Found 5 relevant files', phase: 'exploration' },
  ],
  ExtraKeysSetData: [
    {
      extra_keys: [
        { after: 'edges', path: ['personal_kb', 'communities'], value: 12 },
        { after: null, path: ['workflow_version'], value: { major: 1, notes: ['a', null] } },
      ],
      flow_id: 'flow_9f8bbd8d447f59ba8e894b78',
    },
    { extra_keys: [], flow_id: 'flow_9f8bbd8d447f59ba8e894b78' },
  ],
  FlowRegisteredData: [{ flow_id: 'flow_9f8bbd8d447f59ba8e894b78', variant: 'team' }],
  DeepDiveInitializedData: [
    { agent_count: 5, backup_path: null, deep_dive_id: 'deepdive_f945e34f0e0f6761bb8f2c70', focus_path: null, refresh: false, scope: 'full' },
  ],
  DeepDiveCompiledData: [
    { agents_spawned: 2, deep_dive_id: 'deepdive_f945e34f0e0f6761bb8f2c70', mark_complete: true, sections: { overview: 'A small app' } },
    { deep_dive_id: 'deepdive_f945e34f0e0f6761bb8f2c70', extra_sections: [{ title: 'Team Notes', text: 'Ask Ana' }], mark_complete: false, sections: {} },
  ],
  WuUpdatedData: [{ changed: { title: 'T1 renamed' }, wu_id: 'WU-1' }],
  ObservationWuYamlData: [
    {
      content_hash: 'd3242738824e43bcd1bb124a9970e0979a40a9d86555632106ad1eb6f0473f03',
      fields: { initiative: 'INIT-1', lane: 'L1', status: 'ready', title: 'Five' },
      path: 'docs/wu/WU-5.yaml',
      removed_fields: [],
      wu_id: 'WU-5',
    },
  ],
  WuCheckpointedData: [
    { next_steps: 'idempotency keys', note: 'ledger schema', progress: '40%', session_id: 'session_e8fdfed5495994c3f57262a1', wu_id: 'WU-1' },
    { next_steps: null, note: 'back: drafting the guide', progress: null, session_id: 'session_978fee7306c6c5f209f0dea5', wu_id: 'WU-2' },
  ],
  WuWorkerReturnedData: [
    { note: 'all criteria met', session_id: 'session_e8fdfed5495994c3f57262a1', source: 'manual', wu_id: 'WU-1' },
    { note: null, session_id: 'session_978fee7306c6c5f209f0dea5', source: 'manual', wu_id: 'WU-2' },
  ],
  WuBlockedData: [{ reason: 'waiting on API', wu_id: 'WU-1' }],
  WuUnblockedData: [{ wu_id: 'WU-1' }],
  WuReleasedData: [{ previous_claimant: 'session_74eee975b83b920181234096', reason: 'handing over', wu_id: 'WU-1' }],
  WuStampedData: [
    { completed_date: '2026-04-17', stamp_path: '.baton/stamps/WU-1.done', title: 'Payment core', wu_id: 'WU-1' },
    { completed_date: '2026-04-17', stamp_path: '.baton/stamps/WU-4.done', title: 'CLI reference', wu_id: 'WU-4' },
  ],
  DelegationPickedUpData: [{ wu_id: 'WU-3', delegation_id: 'dlg-7', picked_up_by: 'codex:worker' }],
  DelegationCompletedData: [
    { wu_id: 'WU-3', delegation_id: 'dlg-7' },
    { wu_id: 'WU-3', delegation_id: 'dlg-7', outcome: 'merged' },
  ],
  AttemptStartedData: [
    {
      client: 'codex',
      deferred: [],
      handoff_format: 'markdown',
      initiative: 'INIT-7',
      launch_attempt: 0,
      logical_waves: [0, 1, 2],
      max_active_workers: null,
      max_active_workers_source: 'default',
      stall_threshold: '4h',
      waves: [
        {
          logical_wave: 0,
          logical_waves: [0],
          planned_wave: 0,
          wus: [
            { id: 'WU-1', lane: 'Framework: Core', logical_wave: 0 },
            { id: 'WU-2', lane: 'Docs', logical_wave: 0 },
          ],
        },
        { logical_wave: 1, logical_waves: [1], planned_wave: 1, wus: [{ id: 'WU-3', lane: 'CLI', logical_wave: 1 }] },
        { logical_wave: 2, logical_waves: [2], planned_wave: 2, wus: [{ id: 'WU-4', lane: 'Docs', logical_wave: 2 }] },
      ],
    },
    {
      client: 'generic',
      deferred: [],
      handoff_format: 'markdown',
      initiative: 'INIT-7',
      launch_attempt: 2,
      logical_waves: [2],
      max_active_workers: null,
      max_active_workers_source: 'default',
      stall_threshold: '4h',
      waves: [{ logical_wave: 2, logical_waves: [2], planned_wave: 0, wus: [{ id: 'WU-4', lane: 'Docs', logical_wave: 2 }] }],
    },
  ],
  HandoffEmittedData: [
    {
      branch: 'lane/framework-core/wu-1',
      claimed_mode: 'worktree',
      content_sha256: 'bea5e0aafe17b3b0a2c6024efee19b05a783bd36a385f38f5f2e2f4377f8413c',
      handoff_artifact_path: '.baton/artifacts/orchestration/INIT-7/attempt-0/handoffs/WU-1.md',
      handoff_format: 'markdown',
      initiative: 'INIT-7',
      lane: 'Framework: Core',
      launch_attempt: 0,
      logical_wave: 0,
      relaunch: false,
      worktree_path: 'worktrees/framework-core-wu-1',
      wu_id: 'WU-1',
    },
    {
      branch: 'lane/docs/wu-4',
      claimed_mode: 'worktree',
      content_sha256: '53d33bd89a4f659de71f5ecacde5be988e621f922d44895571d00e98d3a6c2e2',
      handoff_artifact_path: '.baton/artifacts/orchestration/INIT-7/attempt-2/handoffs/WU-4.md',
      handoff_format: 'markdown',
      initiative: 'INIT-7',
      lane: 'Docs',
      launch_attempt: 2,
      logical_wave: 2,
      relaunch: false,
      worktree_path: 'worktrees/docs-wu-4',
      wu_id: 'WU-4',
    },
  ],
  ObservationWorktreeData: [
    { branch: null, path: 'worktrees/framework-core-wu-1', present: true, wu_id: 'WU-1' },
    { branch: null, path: 'worktrees/docs-wu-2', present: true, wu_id: 'WU-2' },
  ],
  ObservationBranchData: [
    { wu_id: 'WU-3', branch: 'lane/l1/wu-3', present: true },
    { wu_id: 'WU-3', branch: 'feature/x', present: false },
  ],
  ObservationDirtyPathsData: [{ paths: ['src/core/ledger.ts'] }, { paths: [] }],
  ObservationStampFileData: [
    {
      wu_id: 'WU-3',
      path: '.baton/stamps/WU-3.done',
      present: true,
      valid: true,
      content_hash: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    },
    { wu_id: 'WU-4', path: '.lumenflow/stamps/WU-4.done', present: false, valid: false, content_hash: null },
  ],
  InitiativeUpdatedData: [
    { initiative: 'INIT-MCP', changed: { status: 'done', title: 'MCP server' } },
    { initiative: 'INIT-7', changed: { slug: null, lanes: ['Docs'], wus: ['WU-1', 'WU-2'], owner: 'ops', target_date: '2026-12-31' } },
  ],
  ObservationInitiativeYamlData: [
    {
      initiative: 'INIT-MCP-FULL',
      path: 'work/initiatives/INIT-MCP-FULL.yaml',
      content_hash: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
      fields: {
        title: 'Full MCP',
        slug: 'mcp-full',
        status: 'open',
        phases: [{ id: 1, title: 'Core' }, 'later'],
        lanes: ['Framework: Core'],
        wus: ['WU-3'],
        priority: 'P1',
        owner: 'tom',
        created: '2026-01-02',
        target_date: '2026-03-01',
      },
      removed_fields: [],
    },
    {
      initiative: 'INIT-2',
      path: 'i/INIT-2.yaml',
      content_hash: 'cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc',
      fields: {},
      removed_fields: ['owner', 'phases'],
    },
  ],
  ObservationLumenflowWuEventData: [
    {
      wu_id: 'WU-4',
      kind: 'checkpoint',
      timestamp: '2026-11-20T10:00:00.000Z',
      line: 3,
      line_key: 'dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd',
      note: 'half way',
      progress: '50%',
      next_steps: 'tests',
      session_id: 'b3c1-uuid',
    },
    {
      wu_id: 'WU-10',
      kind: 'delegation',
      timestamp: '2026-11-20T11:00:00.000Z',
      line: 9,
      line_key: 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
      parent_wu_id: 'WU-4',
      delegation_id: 'dlg-1',
      lane: 'Ops',
    },
  ],
  SettingsRecordedData: [
    {
      source: 'lumenflow',
      path: 'workspace.yaml',
      lanes: { 'Framework: Core': { lock_policy: 'active', wip_limit: 2, code_paths: ['packages/core/**'] }, Docs: {} },
      max_active_workers: 2,
      stamps_dir: 'state/stamps',
    },
    { source: 'lumenflow', path: '/repo/workspace.yaml', lanes: {}, max_active_workers: null, stamps_dir: '.lumenflow/stamps' },
  ],

  NewEventSchema: [
    { type: 'note.recorded', stream: 'note/ops', data: { text: 'hi' } },
    { type: 'receipt.recorded', stream: 'thread/t-1', data: { a: [1, { b: null }] }, actor: 'session_x', at: T },
  ],
  LogRecoveredData: [{ reason: 'torn_tail', segment: '000000000001.jsonl', offset: 0, bytes: 12, quarantined_to: 'quarantine/x', lines_dropped: 0 }],
  LogRepairedData: [
    { reason: 'newline_damaged', segment: '000000000001.jsonl', seq: 3, offset: 922, bytes_changed: 1, replaced: '78' },
    { reason: 'newline_missing', segment: '000000000002.jsonl', seq: 1, offset: 0, bytes_changed: 1, replaced: null },
  ],
  NoteRecordedData: [{ text: 'an annotation' }],
  SessionStartedData: [
    { session_id: 'session_a1', display_name: 'Planck', ttl_seconds: 14400 },
    {
      session_id: 'session_b2',
      display_name: 'Noether-2',
      agent_identity: 'codex:impl:host42',
      role: 'implementer',
      wu_id: 'WU-7',
      lane: 'Core Platform',
      goal: 'ship it',
      branch: 'feature/x',
      worktree: '../wt',
      client_type: 'claude-code',
      ttl_seconds: 60,
    },
  ],
  SessionHeartbeatData: [{ session_id: 'session_a1' }],
  SessionEndedData: [{ session_id: 'session_a1', status: 'cancelled' }],
  SessionLapsedData: [
    { session_id: 'session_a1', last_seen: T, ttl_seconds: 600, lapsed_at: '2026-04-17T10:10:00.000Z', held_wus: ['WU-1'] },
    { session_id: 'session_a1', last_seen: '2026-04-17T10:00:00Z', ttl_seconds: 3600, lapsed_at: '2026-04-17T11:00:00Z', held_wus: ['WU-2', 'WU-10'] },
  ],
  SignalSentData: [SIGNAL, BROADCAST],
  SignalSentStoredData: [SIGNAL, BROADCAST, LEGACY, { signal_id: 'sig-0002', sender_identity: 'x', recipients: ['y'], message: 'm', created_at: T }],
  ReceiptRecordedData: [
    RECEIPT,
    { ...RECEIPT, delivery_state: 'acked', via: 'reply', session_id: 'session_b', cause_signal_id: 'sig-ffff', idempotency_key: 'r-1' },
  ],
  WuPrepOverriddenData: [{ wu_id: 'WU-1', session_id: null, reader_identity: 'agent:a', reason: 'urgent fix', signal_ids: ['sig-abcd'] }],
  InitiativeCreatedData: [
    { initiative: 'INIT-1', title: 'Platform' },
    { initiative: 'INIT-2', title: 'Docs', slug: 'docs', lanes: ['Core', 'Docs: site'] },
  ],
  WuDefinedData: [
    { wu_id: 'WU-1', lane: 'Core' },
    {
      wu_id: 'WU-2',
      lane: 'Core',
      initiative: 'INIT-1',
      title: 'Add it',
      description: 'd',
      acceptance: ['a'],
      dependencies: ['WU-1'],
      code_paths: ['src/**'],
      phase: 2,
      labels: ['x'],
    },
  ],
  WuClaimedData: [
    { wu_id: 'WU-1', session_id: 'session_a1', mode: CLAIMED_MODES[0], worktree_path: null, branch: 'lane/core/wu-1', takeover_from: null },
    {
      wu_id: 'WU-2',
      session_id: 'session_a1',
      mode: CLAIMED_MODES[0],
      worktree_path: null,
      branch: 'lane/core/wu-2',
      takeover_from: null,
      paths: ['docs/**', 'README.md'],
    },
  ],
  GuardSkippedData: [
    { check: 'staged', session_id: null, via: 'BATON_GUARD=off', paths: 0, overridden: [] },
    { check: 'staged', session_id: 'session_a1', via: 'BATON_GUARD=off', paths: 3, overridden: [{ path: 'src/a.ts', wu_id: 'WU-1', holder: 'session_b2' }] },
  ],
  TaskCreatedData: [
    { task_id: 'task_a1', session_id: 'session_a1', label: 'scan', state: 'running' },
    {
      task_id: 'task_b2',
      session_id: 'session_a1',
      label: 'build',
      state: 'queued',
      active_form: 'Building',
      parent_task_id: 'task_a1',
      subagent_kind: 'instrumentation',
    },
  ],
  TaskTransitionedData: [
    { task_id: 'task_a1', from: 'running', to: 'blocked', reason: 'login expired' },
    { task_id: 'task_a1', from: 'running', to: 'waiting_for_user', checkpoint: { id: 'cp-1', kind: 'user_choice', summary: 'pick one' } },
    { task_id: 'task_a1', from: 'running', to: 'failed', result: { outcome: 'failed', summary: 's', error: { message: 'timeout', class: 'network' } } },
    { task_id: 'task_a1', from: 'queued', to: 'superseded', superseded_by: 'task_b2' },
  ],
  TaskOwnershipAddedData: [
    { task_id: 'task_a1', ownership: { kind: 'branch', name: 'main', remote: 'origin' } },
    { task_id: 'task_a1', ownership: { kind: 'pull_request', number: 7, repo: 'acme/app', url: 'https://github.com/acme/app/pull/7', state: 'merged' } },
    { task_id: 'task_a1', ownership: { kind: 'worktree', path: 'wt/a' } },
    { task_id: 'task_a1', ownership: { kind: 'file', path: 'src/a.ts' } },
  ],
  SubagentStartedData: [{ subagent_id: 'subagent_a1', session_id: 'session_a1', kind: 'instrumentation', root_task_id: 'task_a1' }],
  SubagentFinishedData: [{ subagent_id: 'subagent_a1' }],
  ResumeConfig: [{}, { resume: { invocation: ['npx', 'baton'] } }, { resume: {}, store: { kind: 'jsonl' } }],
  OrchestrationStatusEnvelope: [MINIMAL_STATUS, SEED_STATUS],
  InboxEnvelope: [
    { v: 1, type: 'inbox', generated_at: T, reader_identity: null, session_id: null, marked: 0, signals: [], integrity_findings: [] },
    {
      v: 1,
      type: 'inbox',
      generated_at: T,
      reader_identity: 'agent:b',
      session_id: 'session_b',
      marked: 1,
      signals: [{ signal_id: 'sig-abcd', seq: 4, read: true, delivery_state: 'acked', sender_display_name: 'Planck', message: 'm', recipients: [] }],
      integrity_findings: [{ seq: 9, type: 'signal.sent', reason: 'invalid signal.sent data: data: Invalid input' }],
    },
  ],
  InboxInput: [{}, { for: 'Planck', thread: 't-1', intent: ['INFO', 'AGREE'], wu: 'WU-3', mark: false, all: true }],
  CoordinationConfigSchema: [
    {},
    { session_ttl: '4h', display_name_pool: ['Ada', 'Bob'], a2a: { profile: 'hosted', workspace_id: 'ws-1' }, store: { kind: 'jsonl' } },
    { a2a: {} },
  ],
  WorkUnitsConfigSchema: [
    {},
    {
      store: { kind: 'jsonl' },
      orchestration: {
        stall_threshold: '90m',
        max_active_workers: 3,
        default_client: 'codex',
        default_claim_mode: 'branch-pr',
        worktrees_dir: 'wt',
        claude_subagent_type: 'x',
        contamination_ignore: ['docs/**'],
      },
      lane_defaults: { lock_policy: 'active', wip_limit: 2 },
      lanes: { Core: { wip_limit: 3 }, 'Docs: site': { lock_policy: 'none' } },
      prep: { commands: [['npm', 'test'], ['make']] },
      probes: { enabled: false, wu_yaml_paths: ['docs/wu'] },
    },
  ],
  InitiativeStatusEnvelope: [
    {
      v: 1,
      type: 'initiative_status',
      generated_at: T,
      initiative: 'INIT-1',
      launch_attempt: null,
      logical_waves: [],
      available_capacity: null,
      max_active_workers: null,
      blocked_by_integrity: false,
      integrity_findings: [],
      next_safe_actions: [],
      wus: [],
    },
    {
      v: 1,
      type: 'initiative_status',
      generated_at: T,
      initiative: 'INIT-2',
      launch_attempt: 3,
      logical_waves: [0, 1],
      available_capacity: 1,
      max_active_workers: 2,
      blocked_by_integrity: true,
      integrity_findings: [{ seq: 9, stream: 'wu/WU-2', type: 'wu.claimed', code: 'REJECTED_BY_MACHINE', message: 'no' }],
      next_safe_actions: [
        { type: 'recover_wu', wu_id: 'WU-2', reason: 'Uncommitted changes.', logical_wave: 0 },
        { type: 'wait', wu_id: 'WU-3', reason: 'Queued.', logical_wave: 1, wu_ids: ['WU-3', 'WU-4'] },
      ],
      wus: [
        {
          wu_id: 'WU-2',
          title: 'Add it',
          lane: 'Core',
          orchestration_state: 'contaminated',
          yaml_status: 'in_progress',
          logical_wave: 0,
          planned_wave: null,
          launch_attempt: 3,
          claimed_mode: 'worktree',
          contamination_paths: ['src/a.ts'],
          queued_by_capacity: false,
          launch_blocked_by: [],
          blockers: [],
          last_activity_at: T,
          worktree_path: 'worktrees/WU-2',
        },
        {
          wu_id: 'WU-3',
          title: 'Next',
          lane: null,
          orchestration_state: 'eligible',
          yaml_status: null,
          logical_wave: 1,
          planned_wave: 1,
          launch_attempt: null,
          claimed_mode: null,
          contamination_paths: [],
          queued_by_capacity: true,
          launch_blocked_by: ['capacity'],
          blockers: ['WU-2'],
          last_activity_at: null,
          worktree_path: null,
        },
      ],
    },
  ],
  InitiativePlanEnvelope: [
    {
      v: 1,
      type: 'initiative_plan',
      generated_at: T,
      dry_run: true,
      initiative: 'INIT-1',
      launch_attempt: 0,
      max_active_workers: null,
      logical_waves: [],
      waves: [],
      deferred: [],
    },
    {
      v: 1,
      type: 'initiative_plan',
      generated_at: T,
      dry_run: true,
      initiative: 'INIT-1',
      launch_attempt: 2,
      max_active_workers: 4,
      logical_waves: [0, 1],
      waves: [{ planned_wave: 0, logical_wave: 0, logical_waves: [0, 1], wus: [{ id: 'WU-1', lane: 'Core', logical_wave: 0 }] }],
      deferred: [{ wu_id: 'WU-5', reason: 'Waiting for WU-4 (blocked).' }],
    },
  ],
  ConfigFileSchema: [{}, { store: { kind: 'jsonl' } }, { store: { kind: 'postgres', url: 'postgres://db/x', workspace_id: 'w' }, other: [1] }],
  StoreConfigSchema: [{ kind: 'jsonl' }, { kind: 'postgres', url: 'postgresql://u@h:5/db' }],
  IndexCacheSchema: [
    {
      version: 1,
      segment: '000000000001.jsonl',
      offset: 120,
      seq: 3,
      hash: 'h',
      streams: [['note/a', 2]],
      idempotency: [['k', { digest: 'd', first: 1, last: 2 }]],
    },
  ],
};

/** Values that sit on the rules' edges: blanks, control characters, commas, astral characters, lengths. */
const edgeString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\t',
    'a\u0000b',
    'a,b',
    'x\n',
    '😀',
    '\ud83d',
    'session_',
    'session_x',
    'sig-abcd',
    'WU-1',
    'INIT-9',
    'system',
    'A2A.V1',
    T,
    '2026-02-30T00:00:00Z',
    '2026-04-17T10:00:00+02:00',
    'postgres://x',
    'INFO',
    'delivered',
    'jsonl',
    'hosted',
    '4h',
    '-1',
  ),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(1, 2, 63, 64, 65, 100, 101, 128, 200, 201, 2000, 4000, 4001, 16384, 16385).map((n) => 'x'.repeat(n)),
  fc.constantFrom(1, 100, 101).map((n) => '😀'.repeat(n)),
);
const edgeValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: edgeString },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, null, true, false, 0, -1, 1.5, 2 ** 53, NaN, Infinity, -0, [], {}, [null], ['Core']) },
);

/**
 * Values on the edges of one schema's own rules, by the property they belong to ('' for the
 * whole): each numeric bound and its neighbours, strings and arrays one under, at and over each
 * length bound (in code units and in astral code points), and every enum and literal value — so
 * an off-by-one in a compiled validator shows.
 */
function schemaEdges(schema: z.ZodType): Map<string, unknown[]> {
  const out = new Map<string, Set<unknown>>();
  const add = (key: string, v: unknown): void => {
    for (const k of [key, '']) {
      if (!out.has(k)) out.set(k, new Set());
      out.get(k)!.add(v);
    }
  };
  const seen = new Set<unknown>();
  const walk = (node: unknown, key: string): void => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    const def = (node as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) return;
    for (const check of (def['checks'] as { _zod: { def: Record<string, unknown> } }[] | undefined) ?? []) {
      const c = check._zod.def;
      for (const bound of ['value', 'minimum', 'maximum', 'length']) {
        const n = c[bound];
        if (typeof n !== 'number' || !Number.isFinite(n)) continue;
        for (const v of [n - 1, n, n + 1, n + 0.5]) add(key, v);
        for (const len of [n - 1, n, n + 1]) {
          if (len < 0 || len > 20_000) continue;
          add(key, 'x'.repeat(len));
          add(key, ' '.repeat(len));
          add(key, '😀'.repeat(len));
          add(
            key,
            Array.from({ length: len }, () => 'x'),
          );
        }
      }
    }
    if (def['type'] === 'enum') for (const v of Object.values(def['entries'] as Record<string, unknown>)) add(key, v);
    if (def['type'] === 'literal') for (const v of def['values'] as unknown[]) add(key, v);
    const shape = def['shape'];
    if (shape && typeof shape === 'object') for (const [k, child] of Object.entries(shape)) walk(child, k);
    for (const k of ['element', 'innerType', 'in', 'out', 'keyType', 'valueType', 'left', 'right']) walk(def[k], key);
    for (const k of ['options', 'items']) if (Array.isArray(def[k])) (def[k] as unknown[]).forEach((child) => walk(child, key));
  };
  walk(schema, '');
  return new Map([...out].map(([k, v]) => [k, [...v]]));
}

interface Mutation {
  at: number;
  /** `edge`: set the slot to an edge value of the property it is (schemaEdges). */
  kind: 'set' | 'edge' | 'delete' | 'add' | 'append';
  value: unknown;
  key: string;
  pick: number;
}
const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('set', 'set', 'edge', 'edge', 'delete', 'add', 'append'),
  value: edgeValue,
  key: fc.constantFrom('extra', 'id', 'schema_version', 'target_agent', '__proto__', 'constructor', 'text'),
  pick: fc.nat(),
});

/** Every container and leaf of `value`, as [parent, key] pairs. */
function slots(value: unknown, out: [Record<string, unknown> | unknown[], string | number][] = []): [Record<string, unknown> | unknown[], string | number][] {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      out.push([value, i]);
      slots(v, out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push([value as Record<string, unknown>, k]);
      slots(v, out);
    }
  }
  return out;
}

function mutate(seed: unknown, mutations: readonly Mutation[], edges: ReadonlyMap<string, unknown[]> = new Map()): unknown {
  const value = structuredClone(seed) as unknown;
  for (const mutation of mutations) {
    // A fresh copy of the payload: the arbitraries share their constants.
    const m = { ...mutation, value: structuredClone(mutation.value) as unknown };
    const all = slots(value);
    if (all.length === 0) continue;
    const [parent, key] = all[m.at % all.length]!;
    const current = (parent as Record<string | number, unknown>)[key];
    if (m.kind === 'edge') {
      const pool = edges.get(typeof key === 'string' ? key : '') ?? edges.get('') ?? [m.value];
      (parent as Record<string | number, unknown>)[key] = structuredClone(pool[m.pick % pool.length]);
    } else if (m.kind === 'set') (parent as Record<string | number, unknown>)[key] = m.value;
    else if (m.kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
    } else if (m.kind === 'add') {
      if (current !== null && typeof current === 'object' && !Array.isArray(current))
        Object.defineProperty(current, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
      else if (Array.isArray(current)) current.push(m.value);
    } else if (typeof current === 'string')
      (parent as Record<string | number, unknown>)[key] = current + (typeof m.value === 'string' ? m.value : (JSON.stringify(m.value) ?? ''));
  }
  return value;
}

interface Target {
  name: string;
  source: string;
  schema: z.ZodType;
  compiled: CompiledSchema<unknown>;
}

async function targets(): Promise<Target[]> {
  const out: Target[] = [];
  for (const spec of OUTPUTS) {
    const generated = (await import(new URL(spec.file.replace(/\.ts$/, '.js'), root).href)) as Record<string, CompiledSchema<unknown>>;
    const all = spec.allEventTypes ? [...spec.targets, ...(await eventTargetsBeyond(spec.targets))] : spec.targets;
    for (const t of all) {
      const module = (await import(new URL(t.module.replace(/\.ts$/, '.js'), root).href)) as Record<string, z.ZodType>;
      out.push({ name: t.name, source: `${t.module}#${t.name}`, schema: module[t.name]!, compiled: generated[t.name]! });
    }
  }
  return out;
}

function expectAgreement(target: Target, input: unknown): void {
  const expected = target.schema.safeParse(input);
  const actual = target.compiled.parse(input);
  if (!expected.success) {
    expect(actual, `${target.source} accepted what zod rejects: ${expected.error.message}`).toBe(INVALID);
    return;
  }
  expect(actual, `${target.source} rejected what zod accepts`).not.toBe(INVALID);
  // node's isDeepStrictEqual, not toStrictEqual: vitest's type check compares `a.constructor`, and a
  // payload may carry its own `constructor` key (NaN ≠ NaN made equal values look different).
  expect(isDeepStrictEqual(actual, expected.data), `${target.source}: ${inspect(actual)} ≠ ${inspect(expected.data)}`).toBe(true);
  // Same keys in the same order: envelopes are printed with JSON.stringify.
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected.data));
}

describe('compiled validators', () => {
  it('are current: the generated files are what the generator writes, and they load neither zod nor yaml', async () => {
    const result = await exec(process.execPath, ['--import', 'tsx', 'scripts/generate-validators.ts', '--check'], { cwd: root, encoding: 'utf8' }).catch(
      (error: { stderr?: string; code?: number }) => error,
    );
    expect((result as { stderr?: string }).stderr ?? '').toBe('');
    expect((result as { code?: number }).code ?? 0).toBe(0);
  }, 120_000);

  it('are build outputs: git tracks no generated file (npm run generate writes them, .gitignore keeps them out)', async () => {
    const tracked = await exec('git', ['ls-files', '--', '*.generated.ts', '**/*.generated.ts', 'schemas'], { cwd: root, encoding: 'utf8' });
    expect(tracked.stdout.trim()).toBe('');
    const ignored = await exec('git', ['check-ignore', '--', 'events/validators.generated.ts', 'machines/work-unit-steps.generated.ts'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(ignored.stdout.trim().split('\n')).toEqual(['events/validators.generated.ts', 'machines/work-unit-steps.generated.ts']);
  });

  it('has valid seeds for every target (a new target needs seeds here)', async () => {
    for (const target of await targets()) {
      const seeds = SEEDS[target.name];
      expect(seeds, `no seeds for ${target.source}`).toBeDefined();
      for (const seed of seeds!) {
        expect(target.schema.safeParse(seed).success, `seed of ${target.source} is invalid`).toBe(true);
        expectAgreement(target, seed);
      }
    }
  });

  it('agree with their zod schemas on mutated valid inputs', async () => {
    for (const target of await targets()) {
      const seeds = SEEDS[target.name]!;
      const edges = schemaEdges(target.schema);
      fc.assert(
        fc.property(fc.nat(seeds.length - 1), fc.array(mutationArb, { minLength: 1, maxLength: 4 }), (i, mutations) => {
          expectAgreement(target, mutate(seeds[i], mutations, edges));
        }),
        // Every catalog type is a target (47 types): the same ~40,000 runs in all.
        { numRuns: 800 },
      );
    }
  });

  it('agree with their zod schemas on arbitrary values', async () => {
    for (const target of await targets()) {
      fc.assert(
        fc.property(fc.oneof(fc.anything({ maxDepth: 3 }), edgeValue), (input) => expectAgreement(target, input)),
        { numRuns: 200 },
      );
    }
  });

  it('list the A2A.V1 fields in the order of the zod contract', () => {
    expect([...A2A_SIGNAL_V1_FIELDS]).toEqual(Object.keys(A2ASignalV1.shape));
  });
});

describe('the built-in catalog (no zod loaded) and createCatalog()', () => {
  const full = createCatalog();

  it('knows every catalog type with its streams, internal flag and upcasters', () => {
    const compiled = builtInCatalog();
    expect(Object.keys(COMPILED_EVENT_TYPES).sort()).toEqual(ALL_EVENT_DEFINITIONS.map((d) => d.type).sort());
    for (const def of ALL_EVENT_DEFINITIONS) {
      expect(COMPILED_EVENT_TYPES[def.type]!.streams).toEqual(def.streams);
      expect(compiled.get(def.type)).toMatchObject({ streams: def.streams, internal: def.internal === true });
      expect(UPCASTERS[def.type] ?? []).toEqual(def.upcasters ?? []);
    }
    expect(compiled.types()).toEqual(full.types());
    expect(compiled.builtIn && full.builtIn).toBe(true);
    expect(createCatalog([{ ...ALL_EVENT_DEFINITIONS[0]!, type: 'extra.type' }]).builtIn).toBe(false);
  });

  it('validates, decodes and upcasts like createCatalog(): the same answers before zod is loaded (errors unworded) and after (worded)', async () => {
    const types = [...Object.keys(COMPILED_EVENT_TYPES), 'no.such_type'];
    const dataFor: Record<string, unknown[]> = {
      'log.recovered': SEEDS['LogRecoveredData']!,
      'log.repaired': SEEDS['LogRepairedData']!,
      'note.recorded': SEEDS['NoteRecordedData']!,
      'session.started': SEEDS['SessionStartedData']!,
      'session.heartbeat': SEEDS['SessionHeartbeatData']!,
      'session.ended': SEEDS['SessionEndedData']!,
      'session.lapsed': SEEDS['SessionLapsedData']!,
      'signal.sent': SEEDS['SignalSentStoredData']!,
      'receipt.recorded': SEEDS['ReceiptRecordedData']!,
      'wu.prep_overridden': SEEDS['WuPrepOverriddenData']!,
      'initiative.created': SEEDS['InitiativeCreatedData']!,
      'wu.defined': SEEDS['WuDefinedData']!,
      'wu.claimed': SEEDS['WuClaimedData']!,
      'task.created': SEEDS['TaskCreatedData']!,
      'flow.started': SEEDS['FlowStartedData']!,
      'wu.stamped': SEEDS['WuStampedData']!,
    };
    const seeds = Object.values(dataFor).flat();
    const unloaded = builtInCatalog();
    const loaded = builtInCatalog();
    await loaded.loadSchemas();
    expect(unloaded.schemasLoaded).toBe(false);
    fc.assert(
      fc.property(
        fc.constantFrom(...types),
        fc.constantFrom('thread/t-1', 'session/session_a1', 'wu/WU-1', 'initiative/INIT-1', 'note/ops', 'log/recovery', 'task/x', 'flow/flow_1'),
        fc.nat(seeds.length - 1),
        fc.array(mutationArb, { maxLength: 2 }),
        (type, stream, i, mutations) => {
          const data = mutate(seeds[i], mutations) as Record<string, unknown>;
          const expected = full.validateNew(type, stream, data);
          expect(loaded.validateNew(type, stream, data)).toStrictEqual(expected);
          const before = unloaded.validateNew(type, stream, data);
          expect(before.ok).toBe(expected.ok);
          if (expected.ok) expect(before).toStrictEqual(expected);
          const event = { v: 1, seq: 1, id: 'e1', type, stream, at: T, actor: 'system', data, prev: '0'.repeat(64), hash: '0'.repeat(64) } as StoredEvent;
          expect(loaded.upcast(event)).toStrictEqual(full.upcast(event));
          expect(loaded.decode(event)).toStrictEqual(full.decode(event));
          expect(unloaded.decode(event).ok).toBe(full.decode(event).ok);
        },
      ),
      { numRuns: 600 },
    );
  });
});
