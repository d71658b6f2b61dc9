import type { AppContext } from '../app/context.js';

/**
 * A command's warnings are said once: on stderr in human mode, in the envelope's `warnings[]` in
 * JSON mode (the human status text does not repeat them).
 */
export function emitFlowWarnings(ctx: AppContext, warnings: readonly string[]): void {
  if (ctx.output.mode !== 'human') return;
  for (const warning of warnings) ctx.output.warn(warning);
}
