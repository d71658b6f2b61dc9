import { count, emptyResult, record, type CampaignResult } from './outcome.js';

/**
 * The checker of the claim races (claim-races.ts), apart from the running so a test can feed it a
 * result set of its own: a race has exactly one winner (exit 0), every other racer exits 4 with an
 * error that names the winner, and the log holds exactly one claim of the race's WU, the winner's.
 * It also keeps the latencies and prints the figures table.
 */

/** How one racer's `baton wu claim` ended. */
export interface RacerOutcome {
  /** The session it claimed as. */
  session: string;
  /** The workspace ("host") it ran in. */
  host: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Its stdout and stderr (`--json`: the envelope, or the error envelope). */
  output: string;
  /** From the start gun to its exit. */
  ms: number;
}

export interface RaceOutcome {
  wu: string;
  racers: RacerOutcome[];
}

/** Percentiles of one set of latencies, in ms (nearest rank); null when there were none. */
export interface Quantiles {
  n: number;
  p50: number | null;
  p99: number | null;
}

export function quantiles(values: readonly number[]): Quantiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number | null => (sorted.length === 0 ? null : sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!);
  return { n: sorted.length, p50: at(0.5), p99: at(0.99) };
}

/** What the claim races found on one store: the table's row. */
export interface ClaimRaceFigures {
  store: string;
  races: number;
  racers: number;
  /** Races with two or more winners. */
  doubleWinners: number;
  /** Races nobody won. */
  noWinner: number;
  /** Losers that did not exit 4 with an error naming the winner. */
  losersNotNaming: number;
  /** Races (and uncontended claims) whose WU the log holds other than exactly one claim, the winner's. */
  logMismatches: number;
  winners: Quantiles;
  losers: Quantiles;
  uncontended: Quantiles;
  /** Wall time of a race, spawn to the last exit, in seconds (mean). */
  secondsPerRace: number;
  /** Why the store was not raced, when it was not. */
  skipped?: string;
}

export type ClaimRaceResult = CampaignResult & { claimRaces: ClaimRaceFigures };

export function isClaimRaceResult(result: CampaignResult): result is ClaimRaceResult {
  return 'claimRaces' in result;
}

/** The error envelope a racer printed (`--json`), if any. */
function errorOf(output: string): { code?: unknown; message?: unknown; details?: Record<string, unknown> } | undefined {
  for (const line of output.split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    try {
      const parsed = JSON.parse(line) as { type?: unknown };
      if (parsed.type === 'error') return parsed as { code?: unknown; message?: unknown; details?: Record<string, unknown> };
    } catch {
      continue;
    }
  }
  return undefined;
}

/** The loser's refusal names `winner`: exit 4, its error's holder (`claimed_by`, `holder`) or its message. */
export function namesWinner(racer: RacerOutcome, winner: string): boolean {
  if (racer.code !== 4) return false;
  const error = errorOf(racer.output);
  if (error === undefined) return false;
  const named = [error.details?.['claimed_by'], error.details?.['holder']];
  return named.includes(winner) || (typeof error.message === 'string' && error.message.includes(winner));
}

/** Tallies races into a campaign row: violations as they are found, latencies for the figures. */
export class ClaimRaceTally {
  readonly result: ClaimRaceResult;
  private readonly winnerMs: number[] = [];
  private readonly loserMs: number[] = [];
  private readonly soloMs: number[] = [];
  /** Each race's (and uncontended claim's) WU and the sessions that exited 0, for the log check. */
  private readonly won: { wu: string; winners: string[] }[] = [];
  private raceSeconds = 0;

  constructor(store: string, racers: number) {
    const result = emptyResult(`claim races: ${racers} ${store} racers`);
    this.result = Object.assign(result, {
      claimRaces: {
        store,
        races: 0,
        racers,
        doubleWinners: 0,
        noWinner: 0,
        losersNotNaming: 0,
        logMismatches: 0,
        winners: quantiles([]),
        losers: quantiles([]),
        uncontended: quantiles([]),
        secondsPerRace: 0,
      },
    });
    count(result, 'races', 0);
    count(result, 'losers naming the winner', 0);
  }

  /** One race (or an uncontended claim, one racer alone): exactly one exit 0, every other exit 4 naming it. */
  add(race: RaceOutcome, seconds: number, uncontended = false): void {
    const figures = this.result.claimRaces;
    const winners = race.racers.filter((r) => r.code === 0);
    this.won.push({ wu: race.wu, winners: winners.map((w) => w.session) });
    for (const racer of race.racers) if (racer.code !== 0 && racer.code !== 4) this.failure(race, racer);
    if (winners.length > 1) {
      figures.doubleWinners += 1;
      record(this.result, 'otherFailures', `${race.wu}: ${winners.length} winners (${winners.map((w) => w.session).join(', ')})`);
    } else if (winners.length === 0) {
      figures.noWinner += 1;
      record(this.result, 'otherFailures', `${race.wu}: no racer won (exits ${race.racers.map((r) => r.code ?? r.signal).join(', ')})`);
    }
    for (const loser of race.racers.filter((r) => r.code !== 0)) {
      if (winners.some((w) => namesWinner(loser, w.session))) count(this.result, 'losers naming the winner');
      else {
        figures.losersNotNaming += 1;
        record(
          this.result,
          'otherFailures',
          `${race.wu}: loser ${loser.session} exited ${loser.code ?? loser.signal} without naming the winner: ${said(loser)}`,
        );
      }
    }
    this.result.checked += race.racers.length;
    if (uncontended) {
      this.soloMs.push(...winners.map((r) => r.ms));
      count(this.result, 'uncontended claims');
      return;
    }
    figures.races += 1;
    this.result.trials += 1;
    this.raceSeconds += seconds;
    count(this.result, 'races');
    // Which host won, when the racers came from more than one.
    if (new Set(race.racers.map((r) => r.host)).size > 1) for (const winner of winners) count(this.result, `won on ${winner.host}`);
    this.winnerMs.push(...winners.map((r) => r.ms));
    this.loserMs.push(...race.racers.filter((r) => r.code !== 0).map((r) => r.ms));
  }

  /** The log holds exactly one claim of each WU raced, the winner's: `claims` is each WU's claiming sessions, in log order. */
  checkLog(claims: ReadonlyMap<string, readonly (string | null)[]>): void {
    for (const { wu, winners } of this.won) {
      const logged = claims.get(wu) ?? [];
      if (logged.length === 1 && winners.length === 1 && logged[0] === winners[0]) continue;
      this.result.claimRaces.logMismatches += 1;
      record(this.result, 'otherFailures', `${wu}: the log holds ${logged.length} claim(s) (${logged.join(', ')}), winner(s) ${winners.join(', ') || 'none'}`);
    }
  }

  private failure(race: RaceOutcome, racer: RacerOutcome): void {
    const kind = racer.timedOut ? 'hung' : racer.code === 1 || racer.code === null ? 'exit1' : 'otherFailures';
    record(this.result, kind, `${race.wu}: racer ${racer.session} exited ${racer.code ?? racer.signal}: ${said(racer)}`);
  }

  /** The row, its latencies summed up. */
  finish(seconds: number): ClaimRaceResult {
    const figures = this.result.claimRaces;
    figures.winners = quantiles(this.winnerMs);
    figures.losers = quantiles(this.loserMs);
    figures.uncontended = quantiles(this.soloMs);
    figures.secondsPerRace = figures.races === 0 ? 0 : this.raceSeconds / figures.races;
    this.result.seconds = seconds;
    return this.result;
  }
}

function said(racer: RacerOutcome): string {
  return racer.output.slice(0, 300).replace(/\s+/g, ' ');
}

/** A row for a store the races could not run on: the reason, and no figures (never a pass). */
export function skippedRaces(store: string, racers: number, reason: string): ClaimRaceResult {
  const result = new ClaimRaceTally(store, racers).finish(0);
  result.claimRaces.skipped = reason;
  return result;
}

/** The claim races' own table, beside the campaign table: one row per store raced, then a line per store skipped. */
export function formatClaimRaceTable(rows: readonly ClaimRaceFigures[]): string {
  const header = [
    'store',
    'races',
    'racers',
    'double winners',
    'no winner',
    'losers not naming the winner',
    'log ≠ 1 claim',
    'winner p50/p99 ms',
    'loser p50/p99 ms',
    'uncontended p50/p99 ms',
    's per race',
  ];
  const pair = (q: Quantiles): string => (q.p50 === null ? '-' : `${q.p50.toFixed(0)} / ${q.p99!.toFixed(0)} (n ${q.n})`);
  const raced = rows.filter((r) => r.skipped === undefined);
  const cells = raced.map((r) => [
    r.store,
    String(r.races),
    String(r.racers),
    String(r.doubleWinners),
    String(r.noWinner),
    String(r.losersNotNaming),
    String(r.logMismatches),
    pair(r.winners),
    pair(r.losers),
    pair(r.uncontended),
    r.secondsPerRace.toFixed(2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: readonly string[]): string => `| ${row.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...cells.map(line),
    ...rows.filter((r) => r.skipped !== undefined).map((r) => `claim races on ${r.store} skipped: ${r.skipped!}`),
  ].join('\n');
}
