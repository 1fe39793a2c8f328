// An application's name and configuration, checked as the operator types with the same rules the
// service applies (src/domain/durations.ts, application-rules.ts), and the service's own field errors
// shown beside the fields they name.
import { useState } from 'preact/hooks';
import type { Application, ApplicationRequest } from '../../../src/client/index.js';
import { APPLICATION_NAME_MAX, DEFAULT_CONFIGURATION, PIN_ATTEMPTS_MAX } from '../../../src/domain/application-rules.js';
import { ONE_DAY_MS, ONE_YEAR_MS, validateLimit, validateTimeToLive } from '../../../src/domain/durations.js';
import { unplacedFields } from '../problems.js';
import { Checkbox, FormMessage, TextField } from './fields.js';
import { useSubmission } from './submission.js';

export interface ApplicationValues {
  name: string;
  enabled: boolean;
  pinAttempts: string;
  allowMultiplePinVerifications: boolean;
  pinTimeToLive: string;
  verifyPinLimit: string;
  sendPinPerApplicationLimit: string;
  sendPinPerPhoneNumberLimit: string;
}

export function valuesOf(app?: Application): ApplicationValues {
  const c = app?.configuration ?? DEFAULT_CONFIGURATION;
  return {
    name: app?.name ?? '', enabled: app?.enabled ?? true, pinAttempts: String(c.pinAttempts), allowMultiplePinVerifications: c.allowMultiplePinVerifications,
    pinTimeToLive: c.pinTimeToLive, verifyPinLimit: c.verifyPinLimit, sendPinPerApplicationLimit: c.sendPinPerApplicationLimit,
    sendPinPerPhoneNumberLimit: c.sendPinPerPhoneNumberLimit,
  };
}

/** The errors the service would answer, keyed as it keys them. */
export function checkApplication(v: ApplicationValues): Record<string, string> {
  const errors: Record<string, string> = {};
  const put = (field: string, message: string | null) => { if (message) errors[field] = message; };
  if (v.name.trim() === '') put('name', 'must not be blank');
  else if (v.name.length > APPLICATION_NAME_MAX) put('name', `must be at most ${APPLICATION_NAME_MAX} characters`);
  const attempts = Number(v.pinAttempts);
  if (!/^[0-9]+$/.test(v.pinAttempts) || attempts < 1 || attempts > PIN_ATTEMPTS_MAX) put('configuration.pinAttempts', `must be a whole number between 1 and ${PIN_ATTEMPTS_MAX}`);
  put('configuration.pinTimeToLive', validateTimeToLive(v.pinTimeToLive));
  put('configuration.verifyPinLimit', validateLimit(v.verifyPinLimit, ONE_DAY_MS));
  put('configuration.sendPinPerApplicationLimit', validateLimit(v.sendPinPerApplicationLimit, ONE_YEAR_MS));
  put('configuration.sendPinPerPhoneNumberLimit', validateLimit(v.sendPinPerPhoneNumberLimit, ONE_YEAR_MS));
  return errors;
}

export function toRequest(v: ApplicationValues): ApplicationRequest {
  return {
    name: v.name, enabled: v.enabled,
    configuration: {
      pinAttempts: Number(v.pinAttempts), allowMultiplePinVerifications: v.allowMultiplePinVerifications, pinTimeToLive: v.pinTimeToLive,
      verifyPinLimit: v.verifyPinLimit, sendPinPerApplicationLimit: v.sendPinPerApplicationLimit, sendPinPerPhoneNumberLimit: v.sendPinPerPhoneNumberLimit,
    },
  };
}

const PLACED = ['name', 'enabled', 'configuration.pinAttempts', 'configuration.allowMultiplePinVerifications', 'configuration.pinTimeToLive',
  'configuration.verifyPinLimit', 'configuration.sendPinPerApplicationLimit', 'configuration.sendPinPerPhoneNumberLimit'];

export function ApplicationForm({ initial, submitLabel, onSubmit, onChange }: {
  initial: ApplicationValues;
  submitLabel: string;
  onSubmit: (request: ApplicationRequest) => Promise<string>;
  onChange?: (values: ApplicationValues) => void;
}) {
  const [values, setValues] = useState(initial);
  // A field's error shows once it has been edited (or on submit), then follows every keystroke.
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const { busy, problem, setProblem, run } = useSubmission();
  const [success, setSuccess] = useState<string | null>(null);
  const local = checkApplication(values);

  const set = <K extends keyof ApplicationValues>(key: K, field: string) => (value: ApplicationValues[K]) => {
    const next = { ...values, [key]: value };
    setValues(next);
    setTouched({ ...touched, [field]: true });
    setSuccess(null);
    if (problem?.fields[field]) setProblem({ ...problem, fields: Object.fromEntries(Object.entries(problem.fields).filter(([f]) => f !== field)) });
    onChange?.(next);
  };
  const error = (field: string) => (touched[field] ? local[field] : undefined) ?? problem?.fields[field];

  async function submit(event: Event) {
    event.preventDefault();
    setTouched(Object.fromEntries(PLACED.map((f) => [f, true])));
    if (Object.keys(local).length > 0) {
      setProblem({ message: 'Correct the fields marked below.', fields: {} });
      return;
    }
    await run(async () => {
      setSuccess(await onSubmit(toRequest(values)));
    });
  }

  return (
    <form onSubmit={submit} noValidate class="form">
      <TextField id="name" label="Name" value={values.name} onValue={set('name', 'name')} error={error('name')} required maxLength={APPLICATION_NAME_MAX} />
      <Checkbox id="enabled" label="Enabled (PINs can be sent)" checked={values.enabled} onChecked={set('enabled', 'enabled')} error={error('enabled')} />
      <fieldset>
        <legend>Configuration</legend>
        <div class="field-grid">
          <TextField id="pinAttempts" label="PIN attempts" inputMode="numeric" value={values.pinAttempts} onValue={set('pinAttempts', 'configuration.pinAttempts')}
            error={error('configuration.pinAttempts')} hint="Wrong guesses a PIN admits before it is locked." />
          <TextField id="pinTimeToLive" label="PIN time to live" value={values.pinTimeToLive} onValue={set('pinTimeToLive', 'configuration.pinTimeToLive')}
            error={error('configuration.pinTimeToLive')} hint="e.g. 15m, 1h; at most one year." />
          <TextField id="verifyPinLimit" label="Verify limit per destination" value={values.verifyPinLimit} onValue={set('verifyPinLimit', 'configuration.verifyPinLimit')}
            error={error('configuration.verifyPinLimit')} hint="attempts/period, e.g. 1/3s; period at most one day." />
          <TextField id="sendPinPerApplicationLimit" label="Send limit per application" value={values.sendPinPerApplicationLimit}
            onValue={set('sendPinPerApplicationLimit', 'configuration.sendPinPerApplicationLimit')}
            error={error('configuration.sendPinPerApplicationLimit')} hint="e.g. 10000/1d; period at most one year." />
          <TextField id="sendPinPerPhoneNumberLimit" label="Send limit per destination" value={values.sendPinPerPhoneNumberLimit}
            onValue={set('sendPinPerPhoneNumberLimit', 'configuration.sendPinPerPhoneNumberLimit')}
            error={error('configuration.sendPinPerPhoneNumberLimit')} hint="e.g. 3/1d; period at most one year." />
        </div>
        <Checkbox id="allowMultiplePinVerifications" label="Allow a verified PIN to be verified again" checked={values.allowMultiplePinVerifications}
          onChecked={set('allowMultiplePinVerifications', 'configuration.allowMultiplePinVerifications')} error={error('configuration.allowMultiplePinVerifications')} />
      </fieldset>
      <div class="actions"><button type="submit" disabled={busy}>{busy ? 'Saving…' : submitLabel}</button></div>
      <FormMessage error={problem?.message} extra={unplacedFields(problem, PLACED)} success={success} />
    </form>
  );
}
