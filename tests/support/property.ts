import fc from 'fast-check';
import type { Test } from 'tap';

/** How a property runs: FC_SEED, FC_RUNS and FC_PATH replay a failure as its report says. */
export interface PropertyRun {
  seed: number;
  runs: number;
  path: string | undefined;
}

export function propertyRun(defaultSeed: number, defaultRuns: number): PropertyRun {
  return { seed: Number(process.env.FC_SEED ?? defaultSeed), runs: Number(process.env.FC_RUNS ?? defaultRuns), path: process.env.FC_PATH };
}

/**
 * Checks a fast-check property as one tap assertion. A failure runs and shrinks for at most
 * `limitMs`, so tap's timeout never swallows the report with its seed and path.
 */
export async function checkProperty<Ts extends [unknown, ...unknown[]]>(
  t: Test,
  property: fc.IAsyncProperty<Ts>,
  run: PropertyRun,
  what: string,
  limitMs = 60_000,
): Promise<void> {
  t.comment(`fast-check seed ${run.seed}, ${run.runs} runs${run.path ? `, path ${run.path}` : ''}`);
  try {
    await fc.assert(property, {
      seed: run.seed,
      numRuns: run.runs,
      ...(run.path ? { path: run.path } : {}),
      includeErrorInReport: true,
      plugins: [fc.interruptAfterTimeLimit(limitMs, { failOnInterrupt: true })],
    });
    t.pass(`${run.runs} ${what} held every invariant`);
  } catch (error) {
    t.fail(`${(error as Error).message}\nreplay with FC_SEED=${run.seed} (and FC_PATH from the report above)`);
  }
}
