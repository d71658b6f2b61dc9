import type { FlowFact } from '../../events/flow/flow-events.js';
import { Agent } from '../../events/flow/vocabulary.js';
import { applyFact, withOccurredAt, type FlowContext } from '../../machines/flow-context.js';
import type { FlowMachineEvent } from '../../machines/flow-events.js';
import { step } from '../../machines/flow-snapshot.js';
import { refusalMessage } from '../../deciders/flow-refusal.js';

/**
 * A flow stepped through machine events, collecting the facts they record: how `flow adopt` replays
 * an Agent Flow file and how an outside edit is read as flow steps. An event timed before the
 * driver's own time (a step of an adopted run, at the time its file recorded) records facts that
 * carry that time (`occurred_at`).
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
    this.facts.push(...(event.at === this.at ? result.facts : result.facts.map((fact) => withOccurredAt(fact, event.at))));
    return null;
  }

  /** A fact the machine does not decide (a logged message, the kept keys), on the flow as it stands. */
  record(fact: FlowFact): void {
    this.ctx = applyFact(this.ctx, fact, this.at);
    this.facts.push(fact);
  }

  /**
   * Agent Flow's `--complete` ends a run from anywhere: a completion (by the agent it names) when
   * the last gate passed, otherwise the early end it is, recorded as an abort (gates left as they were).
   */
  end(reason: string, by: { agent?: string | undefined; message?: string | undefined } = {}): string | null {
    const message = by.message === undefined || by.message === '' ? {} : { message: by.message };
    const complete: FlowMachineEvent = { type: 'COMPLETE', agent: by.agent ?? Agent.Orchestrator, ...message, at: this.at };
    return step(this.ctx, complete).accepted ? this.send(complete) : this.send({ type: 'ABORT', reason, ...message, at: this.at });
  }
}
