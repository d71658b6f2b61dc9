import { constEnum } from '../const-enum.js';
/**
 * The task lifecycle's states and the enums of tasks.md §1, §4 that need no zod: the fold, the views
 * and the CLI's read path import them from here; vocabulary.ts re-exports them next to the zod
 * schemas built from them.
 */
export const TaskState = constEnum(['queued', 'running', 'waiting_for_user', 'blocked', 'completed', 'failed', 'cancelled', 'superseded']);
export type TaskState = (typeof TaskState)[keyof typeof TaskState];
/** In the spec's order: the order of every "Allowed: …" message and of the matrix. */
export const TASK_STATES: readonly TaskState[] = Object.values(TaskState);

export const TERMINAL_STATES: readonly TaskState[] = [TaskState.completed, TaskState.failed, TaskState.cancelled, TaskState.superseded];
/** `queued` is not active (parity). */
export const ACTIVE_STATES: readonly TaskState[] = [TaskState.running, TaskState.waiting_for_user, TaskState.blocked];
/** A task may only be created in one of these (C3). */
export const CREATABLE_STATES: readonly TaskState[] = [TaskState.queued, TaskState.running];

export function isTerminal(state: TaskState): boolean {
  return TERMINAL_STATES.includes(state);
}

export const ErrorClass = constEnum(['auth', 'network', 'validation', 'permission', 'cancelled', 'internal', 'unknown']);
export type ErrorClass = (typeof ErrorClass)[keyof typeof ErrorClass];
export const ERROR_CLASSES: readonly ErrorClass[] = Object.values(ErrorClass);

/** Checkpoint kinds with meaning for the pending arrays (§9.5); any other kind is free text. */
export const CheckpointKind = {
  user_choice: 'user_choice',
  event_plan_confirm: 'event_plan_confirm',
  mcp_install: 'mcp_install',
  mcp_action: 'mcp_action',
  manual_verification: 'manual_verification',
} as const;

export const PrState = { open: 'open', closed: 'closed', merged: 'merged' } as const;
export type PrState = (typeof PrState)[keyof typeof PrState];
export const PR_STATES: readonly PrState[] = Object.values(PrState);
