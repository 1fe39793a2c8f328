// Use case of the console's verifications page: the account's PINs, searchable and paged, newest
// first. Never the PIN: the store's rows carry no hash or ciphertext.
import { FieldErrors, ok, type Result } from '../domain/errors.js';
import type { PinListRow, PinStateFilter } from '../store/console-store.js';
import type { Channel } from '../store/store.js';
import type { Principal, ServiceContext } from './context.js';
import { pinState, type PinState } from '../domain/pin-lifecycle.js';

export const PIN_PAGE_DEFAULT = 25;
export const PIN_PAGE_MAX = 100;

export interface PinSearch {
  to?: string;
  applicationId?: string;
  channel?: Channel;
  status?: PinStateFilter;
  since?: number;
  until?: number;
  cursor?: string;
  limit?: number;
}

export interface PinPage {
  pins: Array<PinListRow & { state: PinState }>;
  nextCursor: string | null;
}

/** The cursor names the last PIN of a page: its creation time and id, opaque to clients. */
export function encodeCursor(row: { createdAt: number; id: string }): string {
  return Buffer.from(`${row.createdAt}:${row.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: number; id: string } | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^([0-9]{1,15}):([A-Za-z0-9_-]{1,64})$/.exec(text);
  if (!match) return undefined;
  return { createdAt: Number(match[1]), id: match[2] as string };
}

/** "+41 79 302-67-27" searches as "41793026727": phone numbers are stored as digits only. */
export function normalizeSearch(text: string): string {
  const trimmed = text.trim();
  return /^\+?[0-9][0-9 ()./-]*$/.test(trimmed) ? trimmed.replace(/[^0-9]/g, '') : trimmed;
}

export async function listPins(ctx: ServiceContext, principal: Principal, search: PinSearch): Promise<Result<PinPage>> {
  const errors = new FieldErrors();
  const limit = search.limit ?? PIN_PAGE_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > PIN_PAGE_MAX) errors.add('limit', `must be between 1 and ${PIN_PAGE_MAX}`);
  const after = search.cursor === undefined ? undefined : decodeCursor(search.cursor);
  if (search.cursor !== undefined && after === undefined) errors.add('cursor', 'is not a cursor this service gave out');
  if (search.since !== undefined && search.until !== undefined && search.since >= search.until) errors.add('until', 'must be later than since');
  if (!errors.empty) return errors.result();
  const now = ctx.clock();
  const destination = search.to === undefined ? undefined : normalizeSearch(search.to);
  const rows = await ctx.store.console.listPins(principal.accountId, {
    ...(destination !== undefined && destination !== '' ? { destination } : {}),
    ...(search.applicationId !== undefined ? { applicationId: search.applicationId } : {}),
    ...(search.channel !== undefined ? { channel: search.channel } : {}),
    ...(search.status !== undefined ? { state: search.status } : {}),
    ...(search.since !== undefined ? { since: search.since } : {}),
    ...(search.until !== undefined ? { until: search.until } : {}),
    ...(after ? { after } : {}),
    limit,
  }, now);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return ok({
    pins: page.map((row) => ({ ...row, state: pinState(row, now) })),
    nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
  });
}

