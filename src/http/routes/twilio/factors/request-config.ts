// The Config.* parameters of a factor's create or update, as the TOTP use cases take them: numbers
// where the form sends digits (anything else stays a number the use case refuses: NaN is no integer).
import type { TotpConfigInput } from '../../../../service/totp-factors.js';

export function configInput(body: Partial<Record<'Config.Alg' | 'Config.TimeStep' | 'Config.CodeLength' | 'Config.Skew', string>>): TotpConfigInput {
  const number = (value: string | undefined) => (value === undefined ? undefined : value.trim() === '' ? NaN : Number(value));
  const input: TotpConfigInput = {};
  if (body['Config.Alg'] !== undefined) input.alg = body['Config.Alg'];
  const timeStep = number(body['Config.TimeStep']);
  const codeLength = number(body['Config.CodeLength']);
  const skew = number(body['Config.Skew']);
  if (timeStep !== undefined) input.timeStep = timeStep;
  if (codeLength !== undefined) input.codeLength = codeLength;
  if (skew !== undefined) input.skew = skew;
  return input;
}
