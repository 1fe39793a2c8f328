// Loading data for a page: the value, a problem, and a way to load again.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { problemOf, type Problem } from '../problems.js';

export interface Loaded<T> {
  data: T | undefined;
  problem: Problem | null;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const run = useCallback(load, deps);
  useEffect(() => {
    let current = true;
    setLoading(true);
    run().then(
      (value) => { if (current) { setData(value); setProblem(null); setLoading(false); } },
      (error: unknown) => { if (current) { setProblem(problemOf(error)); setLoading(false); } },
    );
    return () => { current = false; };
  }, [run, round]);
  return { data, problem, loading, reload: () => setRound((r) => r + 1) };
}

/** Shows the children once the data is there; a spinner text before, an alert on failure. */
export function Loading<T>({ state, children }: { state: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (state.problem && state.data === undefined) return <div class="notice error" role="alert"><p>{state.problem.message}</p></div>;
  if (state.data === undefined) return <p class="muted" role="status">Loading…</p>;
  // A later load that failed: say so above what was loaded before.
  return (
    <>
      {state.problem ? <div class="notice error" role="alert"><p>{state.problem.message}</p></div> : null}
      {children(state.data)}
    </>
  );
}
