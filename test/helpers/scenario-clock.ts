/**
 * The spec scenarios' clock: a fixed T0 and times given as seconds after it, as ISO-8601 with
 * milliseconds (what BATON_NOW takes and what the events record).
 */
export function secondsAfter(t0: string): (offsetSeconds: number) => string {
  const t0ms = Date.parse(t0);
  return (offsetSeconds) => new Date(t0ms + offsetSeconds * 1000).toISOString();
}
