import { constEnum } from '../events/const-enum.js';
import { assign, setup, type SnapshotFrom } from 'xstate';

/**
 * The `wu` lifecycle machine (work-units.md §3.3–3.4): the single definition of which lifecycle
 * facts are legal. States are LumenFlow's lifecycle (`ready`, `in_progress`, `blocked`, `done`); the
 * context carries the window evidence the guards need. Commands ask it before appending; the fold
 * uses the table compiled from it (work-unit-table.ts), property-tested to agree with it.
 *
 * Rules encoded here:
 * - `done` reached by a stamp is terminal; `done` reached by a terminal YAML status is left again by
 *   a later non-terminal YAML status (a YAML observation is a fact and is always accepted).
 * - A valid stamp file observed on disk makes the WU done for every command but `wu done`.
 * - "Claimed" = `in_progress` or `blocked`, or a delegation pickup in the window.
 */
export const WuLifecycleState = { ready: 'ready', in_progress: 'in_progress', blocked: 'blocked', done: 'done' } as const;
export type WuLifecycleState = (typeof WuLifecycleState)[keyof typeof WuLifecycleState];
export const WU_LIFECYCLE_STATES = Object.values(WuLifecycleState);

export interface WuMachineContext {
  /** Where `wu unblock` returns to. */
  blocked_from: typeof WuLifecycleState.ready | typeof WuLifecycleState.in_progress;
  /** A `wu.stamped` exists: done for good. */
  stamped: boolean;
  /** The latest stamp-file observation is present and valid. */
  stamp_file: boolean;
  /** A `delegation.picked_up` in the window. */
  picked_up: boolean;
  /** A `handoff.emitted` in the window. */
  handed_off: boolean;
}

/** YAML statuses grouped by what they make the machine (§3.4). */
export const YamlStatusClass = { unclaimed: 'unclaimed', in_progress: 'in_progress', blocked: 'blocked', terminal: 'terminal' } as const;
export type YamlStatusClass = (typeof YamlStatusClass)[keyof typeof YamlStatusClass];

export const WuMachineEventType = constEnum([
  'CLAIM',
  'CHECKPOINT',
  'RETURN',
  'BLOCK',
  'UNBLOCK',
  'RELEASE',
  'STAMP',
  'HANDOFF',
  'RELAUNCH',
  'PICKUP',
  'DELEGATION_COMPLETED',
  'YAML_STATUS',
  'STAMP_FILE',
]);
export type WuMachineEventType = (typeof WuMachineEventType)[keyof typeof WuMachineEventType];

export type WuMachineEvent =
  | { type: Exclude<WuMachineEventType, 'YAML_STATUS' | 'STAMP_FILE'> }
  | { type: 'YAML_STATUS'; status: YamlStatusClass }
  | { type: 'STAMP_FILE'; valid: boolean };

/** Every distinct machine event (parameters enumerated), for the graph traversal and the table. */
export const ALL_WU_MACHINE_EVENTS: readonly WuMachineEvent[] = [
  ...(['CLAIM', 'CHECKPOINT', 'RETURN', 'BLOCK', 'UNBLOCK', 'RELEASE', 'STAMP', 'HANDOFF', 'RELAUNCH', 'PICKUP', 'DELEGATION_COMPLETED'] as const).map(
    (type) => ({ type }),
  ),
  ...Object.values(YamlStatusClass).map((status) => ({ type: 'YAML_STATUS' as const, status })),
  { type: 'STAMP_FILE', valid: true },
  { type: 'STAMP_FILE', valid: false },
];

export const INITIAL_WU_CONTEXT: WuMachineContext = { blocked_from: 'ready', stamped: false, stamp_file: false, picked_up: false, handed_off: false };

/**
 * What a claimed WU accepts alike, in progress or blocked: progress and returns, a release or a
 * relaunch back to ready, the stamp, handoffs and delegations (all but the stamp refused once a
 * stamp file exists).
 */
const whileClaimed = {
  CHECKPOINT: { guard: 'noStampFile', actions: 'accept' },
  RETURN: { guard: 'noStampFile', actions: 'accept' },
  RELEASE: { guard: 'noStampFile', target: 'ready', actions: 'newWindow' },
  STAMP: { target: 'done', actions: 'stamp' },
  HANDOFF: { guard: 'noStampFile', actions: 'handOff' },
  RELAUNCH: { guard: 'noStampFile', target: 'ready', actions: 'relaunchWindow' },
  PICKUP: { guard: 'noStampFile', actions: 'pickUp' },
  DELEGATION_COMPLETED: { guard: 'noStampFile', actions: 'accept' },
} as const;

export const wuMachine = setup({
  types: { context: {} as WuMachineContext, events: {} as WuMachineEvent },
  guards: {
    /** Outside `done`: a valid stamp file on disk still makes the WU done for commands. */
    noStampFile: ({ context }) => !context.stamp_file,
    /** In `ready`, a delegation pickup is what makes it claimed. */
    pickedUp: ({ context }) => !context.stamp_file && context.picked_up,
    pickedUpOrHandedOff: ({ context }) => !context.stamp_file && (context.picked_up || context.handed_off),
    /** From `ready`, `wu done` needs a pickup (claimed) or a valid stamp file already on disk. */
    pickedUpOrStampFile: ({ context }) => context.picked_up || context.stamp_file,
    notStampedYet: ({ context }) => !context.stamped,
    unblockToInProgress: ({ context }) => !context.stamp_file && context.blocked_from === 'in_progress',
    yamlUnclaimed: ({ context, event }) => !context.stamped && event.type === 'YAML_STATUS' && event.status === 'unclaimed',
    yamlInProgress: ({ context, event }) => !context.stamped && event.type === 'YAML_STATUS' && event.status === 'in_progress',
    yamlBlocked: ({ context, event }) => !context.stamped && event.type === 'YAML_STATUS' && event.status === 'blocked',
    yamlTerminal: ({ context, event }) => !context.stamped && event.type === 'YAML_STATUS' && event.status === 'terminal',
  },
  actions: {
    blockedFromReady: assign({ blocked_from: 'ready' as const }),
    blockedFromInProgress: assign({ blocked_from: 'in_progress' as const }),
    stamp: assign({ stamped: true }),
    pickUp: assign({ picked_up: true }),
    handOff: assign({ handed_off: true }),
    /** A release or relaunch starts a new window: what the old one knew no longer counts. */
    newWindow: assign({ picked_up: false, handed_off: false }),
    relaunchWindow: assign({ picked_up: false, handed_off: true }),
    /** A legal fact that changes no state (xstate's `can` needs an action or a target). */
    accept: () => undefined,
    recordStampFile: assign({ stamp_file: ({ event }) => event.type === 'STAMP_FILE' && event.valid }),
  },
}).createMachine({
  id: 'wu',
  initial: 'ready',
  context: () => ({ ...INITIAL_WU_CONTEXT }),
  // Facts accepted in every state; guards pick the target (tried in order).
  on: {
    YAML_STATUS: [
      { guard: 'yamlUnclaimed', target: '.ready' },
      { guard: 'yamlInProgress', target: '.in_progress' },
      { guard: 'yamlBlocked', target: '.blocked', actions: 'blockedFromInProgress' },
      { guard: 'yamlTerminal', target: '.done' },
      // Stamped: the observation is recorded, the state stays done (STAMP_CONTRADICTED in explain).
      { actions: 'accept' },
    ],
    STAMP_FILE: { actions: 'recordStampFile' },
  },
  states: {
    ready: {
      on: {
        CLAIM: { guard: 'noStampFile', target: 'in_progress' },
        CHECKPOINT: { guard: 'pickedUp', actions: 'accept' },
        RETURN: { guard: 'pickedUp', actions: 'accept' },
        BLOCK: { guard: 'noStampFile', target: 'blocked', actions: 'blockedFromReady' },
        RELEASE: { guard: 'pickedUpOrHandedOff', actions: 'newWindow' },
        STAMP: { guard: 'pickedUpOrStampFile', target: 'done', actions: 'stamp' },
        HANDOFF: { guard: 'noStampFile', actions: 'handOff' },
        RELAUNCH: { guard: 'noStampFile', actions: 'relaunchWindow' },
        PICKUP: { guard: 'noStampFile', actions: 'pickUp' },
        DELEGATION_COMPLETED: { guard: 'noStampFile', actions: 'accept' },
      },
    },
    in_progress: {
      on: {
        CLAIM: { guard: 'noStampFile', actions: 'accept' },
        ...whileClaimed,
        BLOCK: { guard: 'noStampFile', target: 'blocked', actions: 'blockedFromInProgress' },
      },
    },
    blocked: {
      on: {
        CLAIM: { guard: 'noStampFile', target: 'in_progress' },
        ...whileClaimed,
        UNBLOCK: [
          { guard: 'unblockToInProgress', target: 'in_progress' },
          { guard: 'noStampFile', target: 'ready' },
        ],
      },
    },
    done: {
      on: {
        // Only `wu done` on a WU done by YAML (no stamp yet) is legal here.
        STAMP: { guard: 'notStampedYet', actions: 'stamp' },
      },
    },
  },
});

export type WuSnapshot = SnapshotFrom<typeof wuMachine>;
