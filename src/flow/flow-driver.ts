import type { FlowFact } from '../../events/flow/flow-events.js';
import type { FlowContext } from '../../machines/flow-context.js';
import type { FlowMachineEvent } from '../../machines/flow-events.js';
import { step } from '../../machines/flow-snapshot.js';
import { refusalMessage } from '../../deciders/flow-refusal.js';

/**
 * A flow stepped through machine events, collecting the facts they record: how `flow adopt` replays
 * an Agent Flow file and how an outside edit is read as flow steps.
 */
export class FlowDriver {
  readonly facts: FlowFact[] = [];
  private ctx: FlowContext;

  constructor(
    start: FlowContext,
    private readonly at: string,
  ) {
    this.ctx = start;
  }

  get context(): FlowContext {
    return this.ctx;
  }

  /** One machine event; a refused one changes nothing and answers why. */
  send(event: FlowMachineEvent): string | null {
    const result = step(this.ctx, event);
    if (!result.accepted) return refusalMessage(this.ctx, event);
    this.ctx = { ...result.context, outbox: [] };
    this.facts.push(...result.facts);
    return null;
  }

  /**
   * Agent Flow's `--complete` ends a run from anywhere: a completion when the last gate passed,
   * otherwise the early end it is, recorded as an abort (gates left as they were).
   */
  end(reason: string): string | null {
    const done = step(this.ctx, { type: 'COMPLETE', agent: 'Orchestrator', at: this.at });
    return done.accepted ? this.send({ type: 'COMPLETE', agent: 'Orchestrator', at: this.at }) : this.send({ type: 'ABORT', reason, at: this.at });
  }
}
