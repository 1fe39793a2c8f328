// The risk score of a send (docs/security.md, "Risk score"): pure arithmetic over counters the sends
// and verifications already keep, so that the same traffic gets the same score on every node and every
// store. Each signal measures one thing, scales it to 0..1 between a floor (nothing unusual) and a
// ceiling (what pumping looks like), and contributes that share of its weight; the score is the sum,
// capped at 100. Only a country (and number type) that next to never converts over dozens of sends
// reaches the default threshold alone; otherwise a block takes two independent signs of pumping.

export type RiskMode = 'enforce' | 'shadow' | 'off';
export const RISK_MODES: readonly RiskMode[] = ['enforce', 'shadow', 'off'];

/** `shadow_block`: the score reached the threshold in shadow mode, so the send went out and the decision was recorded. */
export type RiskDecision = 'allow' | 'block' | 'shadow_block';

export interface RiskSettings {
  mode: RiskMode;
  /** A send whose score reaches this is blocked (enforce) or recorded as shadow-blocked (shadow). */
  blockScore: number;
  /** Per destination country (ISO 3166 alpha-2), a threshold replacing blockScore. */
  countryBlockScores: Record<string, number>;
}

/** What new applications start with: on, at a threshold normal users stay far below. */
export const DEFAULT_RISK_SETTINGS: Readonly<RiskSettings> = Object.freeze({ mode: 'enforce', blockScore: 70, countryBlockScores: Object.freeze({}) as Record<string, number> });

/** Each signal's weight: the points it adds at full strength. */
export const RISK_WEIGHTS = Object.freeze({
  number_type: 50,
  country_conversion: 70,
  prefix_conversion: 40,
  prefix_velocity: 30,
  sequential_numbers: 35,
  client_address_velocity: 25,
  client_device_velocity: 30,
  new_country: 15,
  hour_of_day: 15,
});

export type RiskSignalName = keyof typeof RISK_WEIGHTS;

export interface RiskSignal {
  name: RiskSignalName;
  weight: number;
  /** Points this signal added (0..weight). */
  points: number;
  /** What was measured, for a human: e.g. "PREMIUM_RATE", "2/40 verified (baseline 0.8)". */
  value: string;
}

export interface RiskAssessment {
  score: number;
  decision: RiskDecision;
  mode: Exclude<RiskMode, 'off'>;
  threshold: number;
  signals: RiskSignal[];
  /** The number is on the account's Safe List: never blocked by the score. */
  safeListed: boolean;
}

/** The sliding windows the counters are read over, and the bucket each is counted in. */
export const RISK_WINDOWS = Object.freeze({
  recent: { windowMs: 3_600_000, bucketMs: 300_000 },
  baseline: { windowMs: 86_400_000, bucketMs: 7_200_000 },
  history: { windowMs: 30 * 86_400_000, bucketMs: 86_400_000 },
});
export type RiskWindow = keyof typeof RISK_WINDOWS;

/** What the counters read before a send (this send not counted yet). */
export interface RiskReadings {
  /** libphonenumber's type of the number (MOBILE, PREMIUM_RATE, ...), when it knows it. */
  numberType: string | undefined;
  country: string | undefined;
  /**
   * Sends and verifications to the number's conversionClass (its country, or its premium numbers), to the number's 10 000-number prefix, and of the whole application (its baseline).
   */
  countrySends: number;
  countryVerifies: number;
  prefixSends: number;
  prefixVerifies: number;
  baselineSends: number;
  baselineVerifies: number;
  /** Distinct numbers sent to in the recent window, in the number's block of 10 (the number without its last digit), 100, 1 000 and 10 000. */
  distinctInBlock10: number;
  distinctInBlock100: number;
  distinctInBlock1000: number;
  distinctInBlock10000: number;
  /** Distinct numbers sent to from the end user's client address in the recent window; undefined when the caller named none. */
  distinctFromClientAddress: number | undefined;
  /** Distinct numbers sent to from the end user's device (or, without one, session) in the recent window; undefined when the caller named none. */
  distinctFromClientDevice: number | undefined;
  /** Sends of the application over 30 days, and to this country. */
  historySends: number;
  historyCountrySends: number;
  /** The hour of the day (UTC, 0-23) of this send, and the application's sends in that hour of the day over 30 days. */
  hourOfDay: number;
  historyHourSends: number;
}

/** libphonenumber types that cost the operator more than a mobile number, and how suspicious each is. */
const NUMBER_TYPE_SHARE: Record<string, number> = {
  PREMIUM_RATE: 1, SHARED_COST: 0.8, TOLL_FREE: 0.6, UAN: 0.5, PERSONAL_NUMBER: 0.5, VOIP: 0.4,
};

/**
 * What a number's conversion is counted under: its country, and apart from the rest the premium-rate
 * and shared-cost numbers, which a country's mobiles that verify must not hide.
 */
export function conversionClass(country: string | undefined, numberType: string | undefined): string {
  const cc = country ?? 'unknown';
  return numberType === 'PREMIUM_RATE' || numberType === 'SHARED_COST' ? `${cc}:${numberType}` : cc;
}

/** Conversion is judged only once this many sends are counted (fewer say nothing). */
export const CONVERSION_MIN_SENDS = { country: 10, prefix: 10 };
/** Sends to a country's numbers of a type at which its conversion counts in full (between, in proportion). */
const COUNTRY_CONVERSION_FULL_SENDS = 30;
/** The conversion expected of an application whose own baseline has fewer sends than this. */
const BASELINE_MIN_SENDS = 100;
const PRIOR_CONVERSION = 0.6;
/** An application whose whole traffic converts badly (pumped from the start) is still judged against this much. */
const BASELINE_FLOOR = 0.25;
/** The first sends to a country count as a signal only once the application has this history elsewhere. */
const NEW_COUNTRY_MIN_HISTORY = 20;
/** The hour of the day is judged once the application has this many sends over 30 days: a pattern of its own. */
const HOUR_OF_DAY_MIN_HISTORY = 500;

/** 0 at or below `floor`, 1 at or above `ceiling`, linear between. */
function ramp(value: number, floor: number, ceiling: number): number {
  if (value <= floor) return 0;
  if (value >= ceiling) return 1;
  return (value - floor) / (ceiling - floor);
}

function ratio(verifies: number, sends: number): string {
  return `${verifies}/${sends} verified`;
}

function signal(name: RiskSignalName, share: number, value: string): RiskSignal {
  const weight = RISK_WEIGHTS[name];
  return { name, weight, points: Math.round(weight * share * 10) / 10, value };
}

/** Every signal of a send, from its readings. */
export function riskSignals(r: RiskReadings): RiskSignal[] {
  const baselineMeasured = r.baselineSends >= BASELINE_MIN_SENDS;
  const baseline = Math.max(BASELINE_FLOOR, baselineMeasured ? r.baselineVerifies / r.baselineSends : PRIOR_CONVERSION);
  const baselineText = `baseline ${baseline.toFixed(2)}${baselineMeasured ? '' : ' (prior)'}`;
  const conversionShare = (sends: number, verifies: number, minSends: number) => (sends < minSends ? 0 : ramp(1 - verifies / sends / baseline, 0.3, 0.9));
  const numberType = r.numberType ?? 'UNKNOWN';
  return [
    signal('number_type', NUMBER_TYPE_SHARE[numberType] ?? 0, numberType),
    // Weighted by how much traffic it has seen: a country where next to nothing converts over dozens
    // of sends is burning money whatever the cause, so at full strength this signal blocks alone.
    signal('country_conversion', r.countrySends < CONVERSION_MIN_SENDS.country ? 0
      : ramp(1 - r.countryVerifies / r.countrySends / baseline, 0.5, 0.9) * ramp(r.countrySends, CONVERSION_MIN_SENDS.country, COUNTRY_CONVERSION_FULL_SENDS), `${conversionClass(r.country, r.numberType)}: ${ratio(r.countryVerifies, r.countrySends)}, ${baselineText}`),
    signal('prefix_conversion', conversionShare(r.prefixSends, r.prefixVerifies, CONVERSION_MIN_SENDS.prefix), `${ratio(r.prefixVerifies, r.prefixSends)}, ${baselineText}`),
    signal('prefix_velocity', Math.max(ramp(r.distinctInBlock100, 2, 6), ramp(r.distinctInBlock1000, 4, 15), ramp(r.distinctInBlock10000, 10, 40)),
      `distinct numbers in the last hour: ${r.distinctInBlock100} in its 100-block, ${r.distinctInBlock1000} in its 1000-block, ${r.distinctInBlock10000} in its 10000-block`),
    signal('sequential_numbers', ramp(r.distinctInBlock10, 0, 2), `${r.distinctInBlock10} other numbers of its block of 10 in the last hour`),
    signal('client_address_velocity', r.distinctFromClientAddress === undefined ? 0 : ramp(r.distinctFromClientAddress, 3, 15),
      r.distinctFromClientAddress === undefined ? 'no client address given' : `${r.distinctFromClientAddress} distinct numbers from this address in the last hour`),
    signal('client_device_velocity', r.distinctFromClientDevice === undefined ? 0 : ramp(r.distinctFromClientDevice, 2, 8),
      r.distinctFromClientDevice === undefined ? 'no device or session id given' : `${r.distinctFromClientDevice} distinct numbers from this device or session in the last hour`),
    signal('new_country', r.historySends >= NEW_COUNTRY_MIN_HISTORY && r.historyCountrySends === 0 ? 1 : 0,
      `${r.historyCountrySends} sends to ${r.country ?? 'unknown'} of ${r.historySends} in 30 days`),
    hourOfDaySignal(r),
  ];
}

/**
 * How unusual this hour of the day is for the application: the share of its 30 days' sends made in
 * this hour, against the 1/24 of a flat day. An hour with a quarter of the average share or more is
 * ordinary; one with a twentieth or less (a shop that sends nothing at 3 a.m., being pumped at 3 a.m.)
 * counts in full. Never alone a block: it only adds to other signs.
 */
function hourOfDaySignal(r: RiskReadings): RiskSignal {
  const hour = `${String(r.hourOfDay).padStart(2, '0')}:00 UTC`;
  if (r.historySends < HOUR_OF_DAY_MIN_HISTORY) return signal('hour_of_day', 0, `${hour}: ${r.historySends} sends in 30 days, too few for a pattern`);
  const relative = (r.historyHourSends / r.historySends) * 24;
  return signal('hour_of_day', ramp(-relative, -0.25, -0.05), `${hour}: ${r.historyHourSends} of ${r.historySends} sends in 30 days (${relative.toFixed(2)} times an average hour's share)`);
}

export function thresholdOf(settings: RiskSettings, country: string | undefined): number {
  return (country !== undefined ? settings.countryBlockScores[country] : undefined) ?? settings.blockScore;
}

/** The score of a send and the threshold it is held to (the decision also needs the Safe List: decideRisk). */
export function scoreRisk(settings: RiskSettings, readings: RiskReadings): { score: number; threshold: number; signals: RiskSignal[] } {
  const signals = riskSignals(readings);
  const score = Math.min(100, Math.round(signals.reduce((sum, s) => sum + s.points, 0)));
  return { score, threshold: thresholdOf(settings, readings.country), signals };
}

/** The decision from a score: a number on the Safe List is never blocked, whatever its score. */
export function decideRisk(mode: Exclude<RiskMode, 'off'>, scored: { score: number; threshold: number; signals: RiskSignal[] }, safeListed: boolean): RiskAssessment {
  const over = scored.score >= scored.threshold && !safeListed;
  const decision: RiskDecision = !over ? 'allow' : mode === 'enforce' ? 'block' : 'shadow_block';
  return { ...scored, decision, mode, safeListed };
}

/** What travels with a PIN (its webhook events, its row): the score, the decision and the signals that made it. */
export interface RiskSummary {
  score: number;
  threshold: number;
  decision: RiskDecision;
  mode: Exclude<RiskMode, 'off'>;
  /** The signals that added points, strongest first. */
  signals: Pick<RiskSignal, 'name' | 'points' | 'value'>[];
}

export function riskSummary(assessment: RiskAssessment): RiskSummary {
  const { score, threshold, decision, mode } = assessment;
  return { score, threshold, decision, mode, signals: decidingSignals(assessment).map(({ name, points, value }) => ({ name, points, value })) };
}

/** The signals that made a score, strongest first: what a refusal names. */
export function decidingSignals(assessment: RiskAssessment): RiskSignal[] {
  return assessment.signals.filter((s) => s.points > 0).sort((a, b) => b.points - a.points);
}
