// What every console form does with its request: the submit button is disabled while it runs, and a
// refusal becomes the form's problem (its message and the fields it names), cleared by the next
// success. Pages keep their own checks before sending and what they do with the answer.
import { useState } from 'preact/hooks';
import { problemOf, type Problem } from '../problems.js';

export interface Submission {
  busy: boolean;
  problem: Problem | null;
  setProblem: (problem: Problem | null) => void;
  /** Runs `work` with the form busy; on success the problem is cleared, a failure becomes the problem. */
  run: (work: () => Promise<void>) => Promise<void>;
}

export function useSubmission(): Submission {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  async function run(work: () => Promise<void>): Promise<void> {
    setBusy(true);
    try {
      await work();
      setProblem(null);
    } catch (e) {
      setProblem(problemOf(e));
    } finally {
      setBusy(false);
    }
  }
  return { busy, problem, setProblem, run };
}

/**
 * Actions on a listed row (revoke, delete, enable): their outcome, or why they failed, is one status
 * line above the list, and the list is loaded again after a success.
 */
export function useRowActions(reload: () => void) {
  const [notice, setNotice] = useState<string | null>(null);
  async function act(work: () => Promise<unknown>, done: string): Promise<void> {
    try {
      await work();
      setNotice(done);
      reload();
    } catch (e) {
      setNotice(problemOf(e).message);
    }
  }
  return { notice, setNotice, act };
}
