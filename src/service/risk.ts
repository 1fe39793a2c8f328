// The risk score of every send and resend (docs/security.md, "Risk score"), beside the guards of
// security.ts: read the counters of the number, its prefixes, its country, the end user's address and
// the application's baseline in one query, score them (domain/risk-score.ts), decide by the
// application's mode and thresholds, and once the send is accepted count it and record the decision
// (every block and shadow block, a sample of the rest). Verifications count towards the conversion
// signals. Sends by email are not scored: pumping is a phone-number fraud.
import { randomInt, randomUUID } from 'node:crypto';
import { ipRateKey } from '../domain/client-ip.js';
import { phoneCountry } from '../domain/destinations.js';
import { FieldErrors, fail, ok, type Failure, type Result } from '../domain/errors.js';
import {
  DEFAULT_RISK_SETTINGS, RISK_MODES, RISK_WINDOWS, conversionClass, decideRisk, decidingSignals, scoreRisk,
  type RiskAssessment, type RiskMode, type RiskReadings, type RiskSettings, type RiskWindow,
} from '../domain/risk-score.js';
import type { RiskCounterHit, RiskCounterRead, RiskDecisionPrice, RiskDecisionRecord, RiskSavingsRow, RiskSettingsRow, RiskWrite } from '../store/risk-store.js';
import type { ApplicationRecord, Channel } from '../store/store.js';
import { applicationNotFound } from './applications.js';
import { estimatedMessagePrice, type PlannedMessage } from './budgets.js';
import type { Principal, ServiceContext } from './context.js';
import { profileOf } from './effective-records.js';
import { phoneNumberType } from './security.js';
import { inUnitOfWork } from './unit-of-work.js';

/** One allowed decision in this many is recorded (blocks and shadow blocks always are). */
export const ALLOWED_DECISION_SAMPLE = 20;

export interface RiskCheck {
  assessment: RiskAssessment;
  country: string | undefined;
  /**
   * The counters of the attempt (distinct numbers per block and address), counted whether the send is
   * accepted or blocked: velocity measures what is asked for, so a blocked run keeps its count.
   */
  attemptHits: RiskCounterHit[];
  /** The counters of an accepted send (the conversion signals' sends). None for a resend: its number is counted already. */
  sendHits: RiskCounterHit[];
  /**
   * A block's or shadow block's estimated price of the message (priceRiskDecision), recorded with the
   * decision; an allowed send is never priced (that would cost every send a lookup).
   */
  price?: RiskDecisionPrice | null;
}

/** The settings as stored, or the defaults (in TWOFA_RISK_DEFAULT_MODE) of an application that never set any. */
function storedRiskSettings(ctx: ServiceContext, row: RiskSettingsRow | undefined): RiskSettings {
  if (!row) return { ...DEFAULT_RISK_SETTINGS, mode: ctx.riskDefaultMode ?? DEFAULT_RISK_SETTINGS.mode };
  return { mode: RISK_MODES.includes(row.mode as RiskMode) ? row.mode as RiskMode : 'enforce', blockScore: row.blockScore, countryBlockScores: row.countryBlockScores };
}

/** The settings a send is decided with: the stored ones (defaults for an application without any); `strict` requires enforce. */
export async function loadRiskSettings(ctx: ServiceContext, applicationId: string): Promise<RiskSettings> {
  const row = await ctx.store.risk.getSettings(applicationId);
  const stored = storedRiskSettings(ctx, row);
  return profileOf(ctx) === 'strict' ? { ...stored, mode: 'enforce' } : stored;
}

/** The hour of the day (UTC) of `now`: epoch time has no leap seconds, so hours are whole 3,600,000 ms. */
function hourOfDay(now: number): number {
  return Math.floor(now / 3_600_000) % 24;
}

function bucketOf(window: RiskWindow, now: number): number {
  const { bucketMs } = RISK_WINDOWS[window];
  return Math.floor(now / bucketMs) * bucketMs;
}

// A counter of the recent window is never read further back (the store may forget it sooner:
// RiskCounterRead's `recent`).
function hitOf(c: { counter: string; window: RiskWindow }, now: number): RiskCounterHit {
  const bucketStart = bucketOf(c.window, now);
  return c.window === 'recent' ? { counter: c.counter, bucketStart, recent: true } : { counter: c.counter, bucketStart };
}

function readOf(c: { counter: string; window: RiskWindow }, now: number): RiskCounterRead {
  const since = now - RISK_WINDOWS[c.window].windowMs;
  return c.window === 'recent' ? { counter: c.counter, since, recent: true } : { counter: c.counter, since };
}

/**
 * The end user as the caller names them (never the caller itself: a backend sends every user's PIN):
 * their address (Twilio's DeviceIp, Prelude's signals.ip, X-Client-Ip) and their device, or without
 * one their session (Prelude's signals.device_id, X-Client-Device-Id, X-Client-Session-Id).
 */
export interface ClientSignals {
  address?: string;
  device?: string;
}

/** The counters of a number, each with the window it is read over. */
function countersOf(to: string, country: string | undefined, numberType: string | undefined, now: number, client: { address?: string; device?: string } = {}) {
  const cc = country ?? 'unknown';
  const destinationClass = conversionClass(country, numberType);
  return {
    // The distinct numbers of the number's blocks, named by their digits and the digits dropped
    // (`.0`: the number itself): a number's five counters sort next to one another, so that a send
    // to a number of a sparse block writes one page of the table, not five.
    number: { counter: `d:${to}.0`, window: 'recent' },
    block10: { counter: `d:${to.slice(0, -1)}.1`, window: 'recent' },
    block100: { counter: `d:${to.slice(0, -2)}.2`, window: 'recent' },
    block1000: { counter: `d:${to.slice(0, -3)}.3`, window: 'recent' },
    block10000: { counter: `d:${to.slice(0, -4)}.4`, window: 'recent' },
    ...(client.address !== undefined ? { address: { counter: `addr:${client.address}`, window: 'recent' } } : {}),
    ...(client.device !== undefined ? { device: { counter: `dev:${client.device}`, window: 'recent' } } : {}),
    // Over a day: a slow drip into one country adds up.
    countrySends: { counter: `cs:${destinationClass}`, window: 'baseline' },
    countryVerifies: { counter: `cv:${destinationClass}`, window: 'baseline' },
    prefixVerifies: { counter: `pv:${to.slice(0, -4)}`, window: 'recent' },
    baselineSends: { counter: 'as', window: 'baseline' },
    baselineVerifies: { counter: 'av', window: 'baseline' },
    historySends: { counter: 'h', window: 'history' },
    historyCountrySends: { counter: `hc:${cc}`, window: 'history' },
    // The application's sends per hour of the day (UTC): its daily pattern.
    historyHourSends: { counter: `hod:${hourOfDay(now)}`, window: 'history' },
  } satisfies Record<string, { counter: string; window: RiskWindow }>;
}

/** The assessment of a send or resend to `to`, or undefined when the application scores nothing (mode off, or an email). */
export async function assessSend(ctx: ServiceContext, principal: Principal, app: ApplicationRecord, channel: Channel, to: string, kind: 'send' | 'resend', now: number, client: ClientSignals = {}): Promise<RiskCheck | undefined> {
  if (channel === 'email') return undefined;
  const settings = await loadRiskSettings(ctx, app.id);
  if (settings.mode === 'off') return undefined;
  const country = phoneCountry(to);
  const address = client.address !== undefined ? ipRateKey(client.address) ?? `raw:${client.address}` : undefined;
  const numberType = phoneNumberType(to);
  const counters = countersOf(to, country, numberType, now, { ...(address !== undefined ? { address } : {}), ...(client.device !== undefined ? { device: client.device } : {}) });
  const reads = Object.values(counters).map((c) => readOf(c, now));
  const counts = await ctx.store.risk.readCounters(app.id, reads);
  const count = (c: { counter: string }) => counts.get(c.counter) ?? 0;
  // The distinct-number counters count this number once per window: sends to it again add nothing.
  const seenNumber = count(counters.number) > 0;
  const readings: RiskReadings = {
    numberType, country,
    countrySends: count(counters.countrySends), countryVerifies: count(counters.countryVerifies),
    // The prefix's sends are the distinct numbers asked for in its 10 000-block (blocked ones too).
    prefixSends: count(counters.block10000), prefixVerifies: count(counters.prefixVerifies),
    baselineSends: count(counters.baselineSends), baselineVerifies: count(counters.baselineVerifies),
    // This number's own earlier send is among the block's: the signals count the others.
    distinctInBlock10: count(counters.block10) - (seenNumber ? 1 : 0),
    distinctInBlock100: count(counters.block100) - (seenNumber ? 1 : 0),
    distinctInBlock1000: count(counters.block1000) - (seenNumber ? 1 : 0),
    distinctInBlock10000: count(counters.block10000) - (seenNumber ? 1 : 0),
    distinctFromClientAddress: counters.address ? Math.max(0, count(counters.address) - (seenNumber ? 1 : 0)) : undefined,
    distinctFromClientDevice: counters.device ? Math.max(0, count(counters.device) - (seenNumber ? 1 : 0)) : undefined,
    historySends: count(counters.historySends), historyCountrySends: count(counters.historyCountrySends),
    hourOfDay: hourOfDay(now), historyHourSends: count(counters.historyHourSends),
  };
  const scored = scoreRisk(settings, readings);
  // From the configuration cache: every send asks, since a listed number must not train the baselines either.
  const safeListed = await ctx.store.twilio.isSafeListed(principal.accountId, to);
  const assessment = decideRisk(settings.mode, scored, safeListed);
  const hitsOf = (list: { counter: string; window: RiskWindow }[]) => list.map((c) => hitOf(c, now));
  // A Safe List number's traffic does not train the counters the score compares against.
  const counted = kind === 'send' && !safeListed;
  // The prefix's conversion is of the distinct numbers asked for in it, blocked ones too: a run that is
  // blocked does not look better for it.
  const attempt = seenNumber ? [] : [counters.number, counters.block10, counters.block100, counters.block1000, counters.block10000, ...(counters.address ? [counters.address] : []), ...(counters.device ? [counters.device] : [])];
  return {
    assessment, country,
    attemptHits: counted ? hitsOf(attempt) : [],
    sendHits: counted ? hitsOf([counters.countrySends, counters.baselineSends, counters.historySends, counters.historyCountrySends, counters.historyHourSends]) : [],
  };
}

/**
 * Prices a block or shadow block (check.price): what the message refused would have cost (what the
 * block saved), or what the message sent anyway costs (what a block would have saved), estimated as
 * its budget charge is. An allowed send is left unpriced.
 */
export async function priceRiskDecision(ctx: ServiceContext, applicationId: string, check: RiskCheck, message: PlannedMessage): Promise<void> {
  if (check.assessment.decision === 'allow') return;
  const price = await estimatedMessagePrice(ctx, applicationId, message);
  check.price = price ? { amountMicros: price.amountMicros, currency: price.currency } : null;
}

/** The refusal of a blocked send, naming the signals that made its score. */
export function riskRefusal(assessment: RiskAssessment): Failure {
  const reasons = decidingSignals(assessment).map((s) => `${s.name} +${s.points} (${s.value})`).join('; ');
  return fail('RISK_BLOCKED', `Send blocked as likely SMS pumping: risk score ${assessment.score} reached the application's threshold ${assessment.threshold}: ${reasons}`).failure;
}

/**
 * What a send's assessment writes to the score's state: its hits (`counted`: an accepted send's, only
 * its attempt's when it was blocked, none for a test number's, which nobody ever verifies) and its
 * decision when it is recorded (every block and shadow block, one allowed send in
 * ALLOWED_DECISION_SAMPLE). An accepted send's goes with its PIN (NewPin's `risk`: no write of its
 * own), a block's and a resend's through RiskStore.write. `pinId`: the PIN sent (none for a block).
 */
export function riskWriteOf(principal: Principal, app: ApplicationRecord, kind: 'send' | 'resend', to: string, check: RiskCheck, pinId: string | undefined, now: number, counted: 'send' | 'attempt' | 'none'): RiskWrite {
  const { assessment } = check;
  const hits = counted === 'none' ? [] : counted === 'attempt' ? check.attemptHits : [...check.attemptHits, ...check.sendHits];
  const recorded = assessment.decision !== 'allow' || randomInt(ALLOWED_DECISION_SAMPLE) === 0;
  return {
    applicationId: app.id, hits,
    ...(recorded ? {
      decision: {
        id: decisionId(now), accountId: principal.accountId, applicationId: app.id, pinId: pinId ?? null, kind, createdAt: now,
        destination: to, country: check.country ?? null, score: assessment.score, threshold: assessment.threshold, decision: assessment.decision, mode: assessment.mode,
        safeListed: assessment.safeListed, signals: JSON.stringify(assessment.signals), price: assessment.decision === 'allow' ? null : check.price ?? null,
      },
    } : {}),
  };
}

/**
 * A decision's id: its time first (the listing's order), then 60 random bits of a UUID, which crypto
 * draws from a buffered pool (randomBytes asks the system each time: several times the cost of the
 * rest of the assessment on a busy machine, BENCHMARKS.md).
 */
function decisionId(now: number): string {
  return `${now.toString(36).padStart(10, '0')}${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

/** Counts a successful verification towards the conversion signals. Never throws. */
export async function countRiskVerify(ctx: ServiceContext, applicationId: string, destination: string, now: number): Promise<void> {
  try {
    if (!/^[0-9]+$/.test(destination)) return;
    const settings = await loadRiskSettings(ctx, applicationId);
    if (settings.mode === 'off') return;
    const counters = countersOf(destination, phoneCountry(destination), phoneNumberType(destination), now);
    await ctx.store.risk.write({ applicationId, hits: [counters.countryVerifies, counters.prefixVerifies, counters.baselineVerifies].map((c) => hitOf(c, now)) });
  } catch {
    // A lost verification errs towards a lower conversion, never towards a failed verification.
  }
}

export interface RiskSettingsView extends RiskSettings {
  applicationId: string;
  /** When the settings were last changed; null: never (the defaults of a new application). */
  updatedAt: number | null;
}

export type RiskSettingsPatch = Partial<RiskSettings>;

async function settingsView(ctx: ServiceContext, applicationId: string): Promise<RiskSettingsView> {
  const row = await ctx.store.risk.getSettings(applicationId);
  return { applicationId, ...(await loadRiskSettings(ctx, applicationId)), updatedAt: row?.updatedAt ?? null };
}

export async function getRiskSettings(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<RiskSettingsView>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  return ok(await settingsView(ctx, app.id));
}

const COUNTRY = /^[A-Z]{2}$/;

/** PUT merges: fields left out keep their values; `countryBlockScores` replaces the whole map. */
export async function updateRiskSettings(ctx: ServiceContext, principal: Principal, applicationId: string, patch: RiskSettingsPatch): Promise<Result<RiskSettingsView>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return applicationNotFound(applicationId);
  const errors = new FieldErrors();
  if (patch.mode !== undefined && !RISK_MODES.includes(patch.mode)) errors.add('mode', `must be one of ${RISK_MODES.join(', ')}`);
  if (patch.mode !== undefined && patch.mode !== 'enforce' && profileOf(ctx) === 'strict') errors.add('mode', 'must be enforce under the strict security profile');
  const score = (field: string, value: number) => { if (!Number.isInteger(value) || value < 1 || value > 100) errors.add(field, 'must be an integer from 1 to 100'); };
  if (patch.blockScore !== undefined) score('blockScore', patch.blockScore);
  for (const [country, value] of Object.entries(patch.countryBlockScores ?? {})) {
    if (!COUNTRY.test(country)) errors.add('countryBlockScores', `${country} is not an ISO 3166 alpha-2 country code`);
    score(`countryBlockScores.${country}`, value);
  }
  if (!errors.empty) return errors.result();
  const row = await ctx.store.risk.getSettings(app.id);
  const current = storedRiskSettings(ctx, row);
  const merged: RiskSettings = { ...current, ...patch };
  return inUnitOfWork(ctx, principal, async (unit) => {
    await ctx.store.risk.putSettings(principal.accountId, app.id, merged, ctx.clock());
    unit.audit({ event: 'config.risk.update', applicationId: app.id, reason: `mode=${merged.mode} blockScore=${merged.blockScore}` });
    return ok(await settingsView(ctx, app.id));
  });
}

/** A recorded decision as the API shows it: its signals parsed, its account left out. */
export type RiskDecisionView = Omit<RiskDecisionRecord, 'accountId' | 'signals'> & { signals: RiskAssessment['signals'] };

export function presentRiskDecision(d: RiskDecisionRecord): RiskDecisionView {
  const { accountId, signals, ...rest } = d;
  void accountId;
  return { ...rest, signals: JSON.parse(signals) as RiskAssessment['signals'] };
}

export interface RiskDecisionFilter {
  applicationId?: string;
  country?: string;
  decision?: string;
  since?: number;
  until?: number;
  /** The `next` of the previous page. */
  cursor?: string;
  limit?: number;
}

/** An account's recorded decisions, newest first, a page at a time: `next` is the cursor of the following page. */
export async function listRiskDecisions(ctx: ServiceContext, principal: Principal, filter: RiskDecisionFilter): Promise<Result<{ decisions: RiskDecisionView[]; next: string | null }>> {
  const limit = Math.min(Math.max(filter.limit ?? 100, 1), 1000);
  let before: { createdAt: number; id: string } | undefined;
  if (filter.cursor !== undefined) {
    const match = /^([0-9]{1,15})\.([0-9a-z]{1,64})$/.exec(filter.cursor);
    if (!match) return fail('INVALID_REQUEST', 'Invalid cursor', { validationErrors: { cursor: ['must be the `next` of a previous page'] } });
    before = { createdAt: Number(match[1]), id: match[2]! };
  }
  const rows = await ctx.store.risk.listDecisions(principal.accountId, {
    ...(filter.applicationId !== undefined ? { applicationId: filter.applicationId } : {}),
    ...(filter.country !== undefined ? { country: filter.country } : {}),
    ...(filter.decision !== undefined ? { decision: filter.decision } : {}),
    ...(filter.since !== undefined ? { since: filter.since } : {}),
    ...(filter.until !== undefined ? { until: filter.until } : {}),
    ...(before ? { before } : {}),
    limit,
  });
  const last = rows.length === limit ? rows[rows.length - 1] : undefined;
  return ok({ decisions: rows.map(presentRiskDecision), next: last ? `${last.createdAt}.${last.id}` : null });
}

export interface RiskSavingsFilter {
  applicationId?: string;
  since?: number;
  until?: number;
}

/** Per currency, what blocks saved and shadow blocks would have saved (micro-units), and how many decisions had no price. */
export interface RiskSavingsView {
  currencies: { currency: string; blockedMicros: number; shadowBlockedMicros: number; blocks: number; shadowBlocks: number }[];
  /** Blocks and shadow blocks recorded without a price (no price list, an email, no known price). */
  unpriced: { blocks: number; shadowBlocks: number };
}

/** The account's blocks and shadow blocks summed per currency of their recorded price (docs/api.md, GET /api/v1/risk/savings). */
export async function riskSavings(ctx: ServiceContext, principal: Principal, filter: RiskSavingsFilter): Promise<Result<RiskSavingsView>> {
  const rows: RiskSavingsRow[] = await ctx.store.risk.savings(principal.accountId, filter);
  const priced = rows.filter((r): r is RiskSavingsRow & { currency: string } => r.currency !== null).sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
  const unpriced = rows.find((r) => r.currency === null);
  return ok({
    currencies: priced.map(({ currency, blockedMicros, shadowBlockedMicros, blocks, shadowBlocks }) => ({ currency, blockedMicros, shadowBlockedMicros, blocks, shadowBlocks })),
    unpriced: { blocks: unpriced?.blocks ?? 0, shadowBlocks: unpriced?.shadowBlocks ?? 0 },
  });
}

/** The assessment recorded for a PIN (every shadow-blocked send, a sample of the allowed), for its detail. */
export async function riskDecisionOfPin(ctx: ServiceContext, accountId: string, pinId: string): Promise<RiskDecisionView | null> {
  const d = await ctx.store.risk.decisionOfPin(accountId, pinId);
  return d ? presentRiskDecision(d) : null;
}
