// The workflow rules: validation of an application's steps, and the plan of one PIN's steps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planWorkflow, validateWorkflow, type WorkflowStep } from '../../src/domain/workflows.js';

describe('validateWorkflow', () => {
  it('takes a first step without a delay and later ones with one', () => {
    const steps = [{ channel: 'whatsapp' }, { channel: 'sms', after: '30s' }, { channel: 'voice', after: '1h' }];
    assert.deepEqual(validateWorkflow({ steps }), { ok: true, value: steps });
  });

  it('names each wrong field', () => {
    const result = validateWorkflow({ steps: [{ channel: 'fax', after: '1s' }, { channel: 'sms' }, { channel: 'voice', after: '61m' }] });
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(Object.keys(result.failure.validationErrors ?? {}).sort(), ['steps[0].after', 'steps[0].channel', 'steps[1].after', 'steps[2].after']);
  });
});

describe('planWorkflow', () => {
  const all = () => true;
  const steps: WorkflowStep[] = [{ channel: 'email' }, { channel: 'whatsapp', after: '10s' }, { channel: 'email', after: '20s' }, { channel: 'sms', after: '30s' }, { channel: 'voice', after: '40s' }];

  it('skips steps that cannot reach the destination and carries their delays to the next step that goes', () => {
    const plan = planWorkflow(steps, true, all);
    assert.deepEqual(plan.map((s) => [s.channel, s.state, s.delayMs]), [
      ['email', 'skipped', 0], ['whatsapp', 'go', 0], ['email', 'skipped', 0], ['sms', 'go', 50_000], ['voice', 'go', 40_000],
    ]);
    assert.match((plan[0] as { reason: string }).reason, /phone number/);
  });

  it('skips channels without a transport', () => {
    const plan = planWorkflow(steps, true, (c) => c !== 'sms');
    assert.deepEqual(plan.map((s) => [s.channel, s.state, s.delayMs]), [
      ['email', 'skipped', 0], ['whatsapp', 'go', 0], ['email', 'skipped', 0], ['sms', 'skipped', 0], ['voice', 'go', 90_000],
    ]);
  });

  it('takes only email steps for an email address', () => {
    assert.deepEqual(planWorkflow(steps, false, all).filter((s) => s.state === 'go').map((s) => [s.channel, s.delayMs]), [['email', 0], ['email', 30_000]]);
  });
});
