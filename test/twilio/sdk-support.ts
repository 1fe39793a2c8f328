// What the suites driving twofa through Twilio's official Node SDK share: an HTTP client that records
// every answer the SDK parses, and the assertion of a RestException's status and code.
import assert from 'node:assert/strict';
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';

export interface Recorded { method: string; uri: string; statusCode: number; body: unknown }

/** The SDK's own HTTP client, recording every answer it parses. */
export class RecordingClient extends twilio.RequestClient {
  readonly answers: Recorded[] = [];
  override async request<TData>(opts: RequestClient.RequestOptions<TData>) {
    const response = await super.request<TData>(opts);
    const raw = response.body as unknown;
    const body = typeof raw === 'string' && raw !== '' ? JSON.parse(raw) as unknown : raw;
    this.answers.push({ method: String(opts.method).toUpperCase(), uri: opts.uri, statusCode: response.statusCode, body });
    return response;
  }
}

export type RestError = Error & { status: number; code: number; moreInfo: string };

export async function rejectsWith(promise: Promise<unknown>, status: number, code: number): Promise<RestError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof twilio.RestException, `a RestException, not ${String(err)}`);
    const e = err as unknown as RestError;
    assert.equal(e.status, status, e.message);
    assert.equal(e.code, code, e.message);
    assert.equal(e.moreInfo, `https://www.twilio.com/docs/errors/${code}`);
    return e;
  }
  assert.fail(`expected a ${status} ${code}`);
}
