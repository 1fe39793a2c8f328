// The application's anti-fraud settings (/api/v1/applications/{appId}/security): country and prefix
// rules, premium numbers, per-IP and per-range send limits, and the conversion breaker, checked as
// they are typed with the service's rules; its active blocks and its word on the brute-force budget.
import { useState } from 'preact/hooks';
import type { ApplicationSecurity, ApplicationSecurityRequest } from '../../../src/client/index.js';
import { ONE_DAY_MS, parseDuration, validateLimit } from '../../../src/domain/durations.js';
import { useClient } from '../context.js';
import { dateTime } from '../format.js';
import { unplacedFields } from '../problems.js';
import { Checkbox, FormMessage, TextField } from './fields.js';
import { Loading, useLoad } from './load.js';
import { useSubmission } from './submission.js';

const list = (text: string) => text.split(/[\s,;]+/).map((v) => v.trim()).filter((v) => v !== '');

interface Values {
  enabled: boolean;
  allowedCountries: string;
  blockedCountries: string;
  allowedPrefixes: string;
  blockedPrefixes: string;
  refusePremiumNumbers: boolean;
  perIpSendLimit: string;
  perPrefixSendLimit: string;
  breakerEnabled: boolean;
  window: string;
  minSends: string;
  minConversionRate: string;
  blockFor: string;
}

function valuesOf(s: ApplicationSecurity['settings']): Values {
  return {
    enabled: s.enabled, allowedCountries: s.allowedCountries.join(', '), blockedCountries: s.blockedCountries.join(', '),
    allowedPrefixes: s.allowedPrefixes.join(', '), blockedPrefixes: s.blockedPrefixes.join(', '), refusePremiumNumbers: s.refusePremiumNumbers,
    perIpSendLimit: s.perIpSendLimit ?? '', perPrefixSendLimit: s.perPrefixSendLimit ?? '', breakerEnabled: s.conversionBreaker.enabled,
    window: s.conversionBreaker.window, minSends: String(s.conversionBreaker.minSends), minConversionRate: String(s.conversionBreaker.minConversionRate),
    blockFor: s.conversionBreaker.blockFor,
  };
}

function check(v: Values): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const field of ['allowedCountries', 'blockedCountries'] as const) {
    const bad = list(v[field]).filter((c) => !/^[A-Za-z]{2}$/.test(c));
    if (bad.length > 0) errors[field] = `${bad.join(', ')}: not a two-letter country code such as CH`;
  }
  for (const field of ['allowedPrefixes', 'blockedPrefixes'] as const) {
    const bad = list(v[field]).filter((p) => !/^[1-9][0-9]{0,14}$/.test(p));
    if (bad.length > 0) errors[field] = `${bad.join(', ')}: not a number prefix (digits, country code first, e.g. 4179)`;
  }
  for (const field of ['perIpSendLimit', 'perPrefixSendLimit'] as const) {
    const message = v[field] === '' ? null : validateLimit(v[field], ONE_DAY_MS);
    if (message) errors[field] = message;
  }
  for (const field of ['window', 'blockFor'] as const) {
    const ms = parseDuration(v[field]);
    if (ms === null || ms > ONE_DAY_MS) errors[`conversionBreaker.${field}`] = 'must be a duration such as 30m or 1h, at most one day';
  }
  const minSends = Number(v.minSends);
  if (!/^[0-9]+$/.test(v.minSends) || minSends < 1 || minSends > 1_000_000) errors['conversionBreaker.minSends'] = 'must be a whole number from 1 to 1000000';
  const rate = Number(v.minConversionRate);
  if (v.minConversionRate.trim() === '' || !(rate >= 0 && rate <= 1)) errors['conversionBreaker.minConversionRate'] = 'must be a number from 0 to 1';
  return errors;
}

function request(v: Values): ApplicationSecurityRequest {
  return {
    enabled: v.enabled, allowedCountries: list(v.allowedCountries).map((c) => c.toUpperCase()), blockedCountries: list(v.blockedCountries).map((c) => c.toUpperCase()),
    allowedPrefixes: list(v.allowedPrefixes), blockedPrefixes: list(v.blockedPrefixes), refusePremiumNumbers: v.refusePremiumNumbers,
    perIpSendLimit: v.perIpSendLimit, perPrefixSendLimit: v.perPrefixSendLimit,
    conversionBreaker: { enabled: v.breakerEnabled, window: v.window, minSends: Number(v.minSends), minConversionRate: Number(v.minConversionRate), blockFor: v.blockFor },
  };
}

const PLACED = ['enabled', 'allowedCountries', 'blockedCountries', 'allowedPrefixes', 'blockedPrefixes', 'refusePremiumNumbers', 'perIpSendLimit', 'perPrefixSendLimit', 'conversionBreaker'];

function SecurityForm({ appId, security, onSaved }: { appId: string; security: ApplicationSecurity; onSaved: (s: ApplicationSecurity) => void }) {
  const client = useClient();
  const [values, setValues] = useState(valuesOf(security.settings));
  const { busy, problem, setProblem, run } = useSubmission();
  const [success, setSuccess] = useState<string | null>(null);
  const local = check(values);
  const error = (field: string) => local[field] ?? problem?.fields[field];
  const set = <K extends keyof Values>(key: K) => (value: Values[K]) => { setValues({ ...values, [key]: value }); setSuccess(null); };

  async function submit(event: Event) {
    event.preventDefault();
    if (Object.keys(local).length > 0) return setProblem({ message: 'Correct the fields marked below.', fields: {} });
    await run(async () => {
      const saved = await client.security.update(appId, request(values));
      setSuccess('Anti-fraud settings saved.');
      onSaved(saved);
    });
  }

  return (
    <form class="form" onSubmit={submit} noValidate aria-label="Anti-fraud settings">
      <Checkbox id="sec-enabled" label="Anti-fraud guards on" checked={values.enabled} onChecked={set('enabled')} error={error('enabled')} hint="Master switch: none of the rules below applies while it is off." />
      <div class="field-grid">
        <TextField id="sec-allowedCountries" label="Only these countries" value={values.allowedCountries} onValue={set('allowedCountries')} error={error('allowedCountries')} hint="Two-letter codes, e.g. CH, DE; empty: any." />
        <TextField id="sec-blockedCountries" label="Never these countries" value={values.blockedCountries} onValue={set('blockedCountries')} error={error('blockedCountries')} />
        <TextField id="sec-allowedPrefixes" label="Only numbers starting with" value={values.allowedPrefixes} onValue={set('allowedPrefixes')} error={error('allowedPrefixes')} hint="Digits, country code first, e.g. 4179." />
        <TextField id="sec-blockedPrefixes" label="Never numbers starting with" value={values.blockedPrefixes} onValue={set('blockedPrefixes')} error={error('blockedPrefixes')} />
        <TextField id="sec-perIpSendLimit" label="Sends per client address" value={values.perIpSendLimit} onValue={set('perIpSendLimit')} error={error('perIpSendLimit')} hint="e.g. 10/1h; empty: no limit." />
        <TextField id="sec-perPrefixSendLimit" label="Sends per number range" value={values.perPrefixSendLimit} onValue={set('perPrefixSendLimit')} error={error('perPrefixSendLimit')} hint="The number without its last 4 digits; e.g. 20/1h." />
      </div>
      <Checkbox id="sec-refusePremiumNumbers" label="Refuse premium-rate and shared-cost numbers" checked={values.refusePremiumNumbers} onChecked={set('refusePremiumNumbers')} error={error('refusePremiumNumbers')} />
      <fieldset>
        <legend>Conversion breaker (SMS pumping)</legend>
        <Checkbox id="sec-breaker" label="Block a country whose PINs are not verified" checked={values.breakerEnabled} onChecked={set('breakerEnabled')} error={error('conversionBreaker.enabled')} />
        <div class="field-grid">
          <TextField id="sec-window" label="Counted over" value={values.window} onValue={set('window')} error={error('conversionBreaker.window')} hint="e.g. 1h; at most one day." />
          <TextField id="sec-minSends" label="Judged after sends" inputMode="numeric" value={values.minSends} onValue={set('minSends')} error={error('conversionBreaker.minSends')} />
          <TextField id="sec-minConversionRate" label="Lowest conversion" inputMode="decimal" value={values.minConversionRate} onValue={set('minConversionRate')} error={error('conversionBreaker.minConversionRate')} hint="0 to 1, e.g. 0.1 for 10%." />
          <TextField id="sec-blockFor" label="Block for" value={values.blockFor} onValue={set('blockFor')} error={error('conversionBreaker.blockFor')} hint="e.g. 1h; at most one day." />
        </div>
      </fieldset>
      <div class="actions"><button type="submit" disabled={busy}>{busy ? 'Saving…' : 'Save anti-fraud settings'}</button></div>
      <FormMessage error={problem?.message} extra={unplacedFields(problem, PLACED)} success={success} />
    </form>
  );
}

/** Brute force against the application's TOTP factors: the bound the server enforces, and what the last day saw. */
function TotpGuessing({ totp }: { totp: ApplicationSecurity['totp'] }) {
  const chance = totp.successProbabilityPerFactorPerDay;
  return (
    <div class="totp-guessing" aria-label="TOTP factors">
      <h3>TOTP factors</h3>
      <p>
        At most {totp.codesPerWindow} codes per factor every {totp.windowMinutes} min ({totp.codesPerChallenge} per challenge,
        {' '}{totp.codesPerVerification} per verification): a guesser gets {totp.guessesPerFactorPerDay} tries a day against
        {' '}{totp.codeLength}-digit codes (skew {totp.skew}), a chance of {chance === 0 ? 'none' : `1 in ${Math.round(1 / chance).toLocaleString('en')}`} per factor per day.
      </p>
      <p data-testid="totp-guessing">
        Last 24 hours: <strong>{totp.wrongChallengeCodes}</strong> wrong codes, <strong>{totp.deniedChallenges}</strong> challenges denied;
        {' '}<strong>{totp.lockedFactors}</strong> factors locked out of their verification.
      </p>
    </div>
  );
}

export function SecurityPanel({ appId }: { appId: string }) {
  const client = useClient();
  const state = useLoad(() => client.security.get(appId), [client, appId]);
  const [latest, setLatest] = useState<ApplicationSecurity | null>(null);
  return (
    <section class="panel" aria-labelledby="security-title">
      <h2 id="security-title">Anti-fraud</h2>
      <Loading state={state}>
        {(loaded) => {
          const security = latest ?? loaded;
          return (
            <>
              {security.bruteForce.warning ? <p class="notice error" role="note">{security.bruteForce.warning}</p> : null}
              {security.activeBlocks.length > 0 ? (
                <div class="notice error" role="note">
                  <p><strong>Blocked now:</strong></p>
                  <ul>{security.activeBlocks.map((b) => <li key={b.scope}>{b.scope} until {dateTime(b.blockedUntil)}: {b.reason}</li>)}</ul>
                </div>
              ) : null}
              <TotpGuessing totp={security.totp} />
              <SecurityForm appId={appId} security={security} onSaved={setLatest} />
            </>
          );
        }}
      </Loading>
    </section>
  );
}
