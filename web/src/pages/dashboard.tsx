// The dashboard: sends, deliveries and verifications over time per channel, conversion per channel
// and country, delivery latency (send to transport), the delivery queue now, and refused requests;
// all counted by the service (/api/v1/stats).
import { useState } from 'preact/hooks';
import type { Stats } from '../../../src/client/index.js';
import { BarChart, LineChart, type Series } from '../components/charts.js';
import { SelectField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { useClient } from '../context.js';
import { count, millis, percent, shortTime } from '../format.js';
import { DataTable } from '../components/data-table.js';

const RANGES = {
  '24h': { label: 'Last 24 hours', ms: 86_400_000, bucket: 'hour' as const },
  '7d': { label: 'Last 7 days', ms: 7 * 86_400_000, bucket: 'day' as const },
  '30d': { label: 'Last 30 days', ms: 30 * 86_400_000, bucket: 'day' as const },
};
type RangeKey = keyof typeof RANGES;

export const CHANNELS = [
  { channel: 'sms', name: 'SMS', className: 'series-sms' },
  { channel: 'voice', name: 'Voice', className: 'series-voice' },
  { channel: 'email', name: 'Email', className: 'series-email' },
  // Off unless configured: drawn only when the range holds some of their PINs.
  { channel: 'whatsapp', name: 'WhatsApp', className: 'series-whatsapp', optional: true },
  { channel: 'telegram', name: 'Telegram', className: 'series-telegram', optional: true },
] as const;

const countryNames = typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(undefined, { type: 'region' }) : undefined;
function countryName(code: string | null): string {
  if (code === null) return 'Unknown';
  try {
    return `${countryNames?.of(code) ?? code} (${code})`;
  } catch {
    return code;
  }
}

const REFUSED: Record<string, string> = { 'pin.send.refused': 'Send', 'pin.resend.refused': 'Resend', 'pin.verify.refused': 'Verify' };
const REASONS: Record<string, string> = { 'send:to': 'per-destination limit', 'send:app': 'per-application limit', verifyPinLimit: 'verify limit' };

/** "Send: per-destination limit" for a pin.send.refused entry with reason send:to. */
function refusal(event: string, reason: string | null): string {
  const what = REFUSED[event] ?? event;
  return reason === null ? what : `${what}: ${REASONS[reason] ?? reason}`;
}

function timeline(stats: Stats, metric: 'sends' | 'deliveries' | 'verifications'): { labels: string[]; series: Series[] } {
  const first = Math.floor(stats.from / stats.bucketMs) * stats.bucketMs;
  const starts: number[] = [];
  for (let t = first; t < stats.to; t += stats.bucketMs) starts.push(t);
  const index = new Map(starts.map((t, i) => [t, i]));
  const series = CHANNELS.map((c) => {
    const values = starts.map(() => 0);
    for (const point of stats.series) {
      const i = index.get(point.start);
      if (point.channel === c.channel && i !== undefined) values[i] = point[metric];
    }
    return { name: c.name, className: c.className, values, optional: 'optional' in c };
  }).filter((s) => !s.optional || s.values.some((v) => v > 0)).map(({ name, className, values }) => ({ name, className, values }));
  return { labels: starts.map((t) => shortTime(t, stats.bucketMs)), series };
}

function Totals({ stats }: { stats: Stats }) {
  const sent = stats.conversion.byChannel.reduce((s, c) => s + c.sent, 0);
  const verified = stats.conversion.byChannel.reduce((s, c) => s + c.verified, 0);
  const cards = [
    { id: 'sends', label: 'PINs sent', value: count(stats.totals.sends) },
    { id: 'deliveries', label: 'Handed to a transport', value: count(stats.totals.deliveries) },
    { id: 'verifications', label: 'Verified', value: count(stats.totals.verifications) },
    { id: 'conversion', label: 'Conversion', value: sent === 0 ? '—' : percent(verified / sent) },
    // Time to the phone right now: what waits for delivery, and for how long the oldest has waited.
    { id: 'queue', label: 'Waiting for delivery now', value: stats.queue.pending === 0 ? '0' : `${count(stats.queue.pending)}, oldest ${millis(stats.queue.oldestAgeMs)}` },
  ];
  return (
    <ul class="cards" aria-label="Totals">
      {cards.map((c) => (
        <li key={c.id} class="card">
          <span class="card-label" id={`total-${c.id}-label`}>{c.label}</span>
          <span class="card-value" data-testid={`total-${c.id}`} aria-describedby={`total-${c.id}-label`}>{c.value}</span>
        </li>
      ))}
    </ul>
  );
}

export function Dashboard() {
  const client = useClient();
  const [range, setRange] = useState<RangeKey>('7d');
  const [round, setRound] = useState(0);
  const state = useLoad(() => {
    const to = Date.now();
    const r = RANGES[range];
    return client.stats.get({ from: to - r.ms, to, bucket: r.bucket });
  }, [client, range, round]);

  return (
    <section>
      <div class="page-head">
        <h1 tabIndex={-1}>Dashboard</h1>
        <div class="toolbar">
          <SelectField id="range" label="Range" value={range} onValue={(v) => setRange(v as RangeKey)}
            options={Object.entries(RANGES).map(([value, r]) => ({ value, label: r.label }))} />
          <button type="button" class="secondary" onClick={() => setRound(round + 1)}>Refresh</button>
        </div>
      </div>
      <Loading state={state}>
        {(stats) => (
          <>
            <Totals stats={stats} />
            <div class="grid-charts">
              <LineChart id="chart-sends" title="PINs sent, per channel" {...timeline(stats, 'sends')} />
              <LineChart id="chart-deliveries" title="Messages handed to a transport, per channel" {...timeline(stats, 'deliveries')} />
              <LineChart id="chart-verifications" title="PINs verified, per channel" {...timeline(stats, 'verifications')} />
              <BarChart id="chart-conversion-channel" title="Conversion (verified ÷ sent) per channel" max={1} empty="Nothing sent in this range."
                bars={stats.conversion.byChannel.map((c) => ({
                  label: CHANNELS.find((x) => x.channel === c.channel)?.name ?? c.channel, value: c.rate,
                  text: `${percent(c.rate)} (${count(c.verified)} of ${count(c.sent)})`, className: `series-${c.channel}`,
                }))} />
              <BarChart id="chart-conversion-country" title="Conversion per country (phone channels)" max={1} empty="No PIN sent to a phone in this range."
                bars={stats.conversion.byCountry.slice(0, 12).map((c) => ({
                  label: countryName(c.country), value: c.rate, text: `${percent(c.rate)} (${count(c.verified)} of ${count(c.sent)})`,
                }))} />
              <figure class="chart">
                <figcaption>Delivery latency (send request → transport accepted)</figcaption>
                {stats.latency.length === 0 ? <p class="muted">No message was handed to a transport in this range.</p> : (
                  <DataTable columns={['Channel', 'Messages', 'p50', 'p90', 'p99', 'Slowest']}>
                    {stats.latency.map((l) => (
                      <tr key={l.channel}>
                        <th scope="row">{CHANNELS.find((c) => c.channel === l.channel)?.name ?? l.channel}</th>
                        <td>{count(l.count)}</td><td>{millis(l.p50)}</td><td>{millis(l.p90)}</td><td>{millis(l.p99)}</td><td>{millis(l.max)}</td>
                      </tr>
                    ))}
                  </DataTable>
                )}
              </figure>
              <BarChart id="chart-blocked" title="Refused requests by reason" empty="No request was refused in this range."
                bars={stats.blocked.map((b) => ({ label: refusal(b.event, b.reason), value: b.count, text: count(b.count), className: 'series-blocked' }))} />
            </div>
          </>
        )}
      </Loading>
    </section>
  );
}
