// An application's workflow: the ordered channels one PIN goes out on, each after a delay counted
// from the step before it, until the PIN is verified or ends. Pure rules: validation, and which
// steps a given PIN can take.
import { parseDuration } from './durations.js';
import { FieldErrors, ok, type Result } from './errors.js';

export const WORKFLOW_CHANNELS = ['sms', 'voice', 'email', 'whatsapp', 'telegram'] as const;
export type WorkflowChannel = (typeof WORKFLOW_CHANNELS)[number];

/** A step as the client wrote it (`after` kept as text, e.g. "30s"); the first step has none. */
export interface WorkflowStep {
  channel: WorkflowChannel;
  after?: string;
}

/**
 * More steps than this is not a fallback any more but a spam schedule (and each step is billed);
 * Vonage Verify allows three.
 */
export const MAX_WORKFLOW_STEPS = 5;
/** The shortest delay: a provider needs a moment to accept a message before it can report a failure. */
export const MIN_STEP_DELAY_MS = 1_000;
/** A PIN lives 15 minutes by default; a step an hour later would reach an expired PIN almost always. */
export const MAX_STEP_DELAY_MS = 3_600_000;

export function validateWorkflow(input: { steps: Array<{ channel: string; after?: string }> }): Result<WorkflowStep[]> {
  const errors = new FieldErrors();
  const { steps } = input;
  if (steps.length === 0) errors.add('steps', 'a workflow has at least one step (DELETE the workflow to have none)');
  if (steps.length > MAX_WORKFLOW_STEPS) errors.add('steps', `a workflow has at most ${MAX_WORKFLOW_STEPS} steps`);
  const out: WorkflowStep[] = [];
  steps.forEach((step, i) => {
    const field = `steps[${i}]`;
    if (!(WORKFLOW_CHANNELS as readonly string[]).includes(step.channel)) {
      errors.add(`${field}.channel`, `must be one of ${WORKFLOW_CHANNELS.join(', ')}`);
    }
    if (i === 0) {
      if (step.after !== undefined) errors.add(`${field}.after`, 'the first step goes out at once: it has no `after`');
    } else if (step.after === undefined) {
      errors.add(`${field}.after`, 'every step after the first says how long after the previous one it goes out, e.g. "30s"');
    } else {
      const ms = parseDuration(step.after);
      if (ms === null) errors.add(`${field}.after`, 'must be {timeLength}{timeUnit} with unit ms, s, m, h or d, e.g. 30s');
      else if (ms < MIN_STEP_DELAY_MS || ms > MAX_STEP_DELAY_MS) errors.add(`${field}.after`, `must be between 1s and 1h`);
    }
    out.push({ channel: step.channel as WorkflowChannel, ...(step.after !== undefined ? { after: step.after } : {}) });
  });
  if (!errors.empty) return errors.result();
  return ok(out);
}

export function stepDelayMs(step: WorkflowStep): number {
  return step.after === undefined ? 0 : parseDuration(step.after) ?? 0;
}

const isPhoneChannel = (channel: WorkflowChannel) => channel !== 'email';

/** What a step of a PIN's workflow is, as planned at the send. */
export type PlannedStep =
  | { step: number; channel: WorkflowChannel; delayMs: number; state: 'go' }
  | { step: number; channel: WorkflowChannel; delayMs: number; state: 'skipped'; reason: string };

/**
 * The steps one PIN takes: a step whose channel cannot reach the destination (an email step for a
 * phone number, a phone step for an email address) or has no transport is skipped and recorded, and
 * its delay is carried over to the next step, so the remaining schedule is what the client wrote.
 * The first step that goes carries the send itself.
 */
export function planWorkflow(steps: readonly WorkflowStep[], destinationIsPhone: boolean, configured: (channel: WorkflowChannel) => boolean): PlannedStep[] {
  let carried = 0;
  let first = true;
  return steps.map((s, step) => {
    const delayMs = first ? 0 : carried + stepDelayMs(s);
    const reason = isPhoneChannel(s.channel) !== destinationIsPhone
      ? `the destination is ${destinationIsPhone ? 'a phone number' : 'an email address'}, which ${s.channel} cannot reach`
      : !configured(s.channel) ? `the ${s.channel} channel has no transport` : undefined;
    if (reason !== undefined) {
      if (!first) carried = delayMs;
      return { step, channel: s.channel, delayMs: 0, state: 'skipped', reason };
    }
    first = false;
    carried = 0;
    return { step, channel: s.channel, delayMs, state: 'go' };
  });
}
