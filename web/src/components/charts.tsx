// Charts as inline SVG (no chart library): a line chart of counts over time, one line per series,
// and horizontal bars. Each has a text alternative: a title and description for assistive
// technology, and the numbers in a table under a disclosure.
import { count } from '../format.js';

export interface Series {
  name: string;
  /** A CSS class giving the line its colour (see styles.css: .series-sms ...). */
  className: string;
  values: number[];
}

const WIDTH = 640;
const HEIGHT = 220;
const PAD = { top: 12, right: 28, bottom: 28, left: 44 };

function niceMax(value: number): number {
  if (value <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => value <= s * 4) ?? 10 * magnitude;
  return step * 4;
}

export function LineChart({ id, title, labels, series }: { id: string; title: string; labels: string[]; series: Series[] }) {
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const n = Math.max(1, labels.length - 1);
  const x = (i: number) => PAD.left + (labels.length === 1 ? innerW / 2 : (i / n) * innerW);
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => Math.round(max * f));
  const labelEvery = Math.max(1, Math.ceil(labels.length / 8));
  const totals = series.map((s) => `${s.name} ${count(s.values.reduce((a, b) => a + b, 0))}`).join(', ');
  return (
    <figure class="chart">
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${id}-title ${id}-desc`} preserveAspectRatio="xMidYMid meet">
        <desc id={`${id}-desc`}>{`Totals over the range: ${totals}.`}</desc>
        {ticks.map((t) => (
          <g key={t} class="grid">
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(t)} y2={y(t)} />
            <text x={PAD.left - 6} y={y(t) + 4} text-anchor="end">{count(t)}</text>
          </g>
        ))}
        {labels.map((label, i) => (i % labelEvery === 0 ? <text key={`l${i}`} class="axis" x={x(i)} y={HEIGHT - 8} text-anchor="middle">{label}</text> : null))}
        {series.map((s) => (
          <g key={s.name} class={`series ${s.className}`}>
            <polyline fill="none" points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')} />
            {s.values.map((v, i) => (v > 0 ? <circle key={i} cx={x(i)} cy={y(v)} r={3}><title>{`${s.name}, ${labels[i]}: ${v}`}</title></circle> : null))}
          </g>
        ))}
      </svg>
      <ul class="legend">
        {series.map((s) => <li key={s.name}><span class={`swatch ${s.className}`} aria-hidden="true" />{s.name}</li>)}
      </ul>
      <details>
        <summary>Numbers</summary>
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Time</th>{series.map((s) => <th key={s.name} scope="col">{s.name}</th>)}</tr></thead>
            <tbody>
              {labels.map((label, i) => (
                <tr key={`${label}-${i}`}><th scope="row">{label}</th>{series.map((s) => <td key={s.name}>{s.values[i] ?? 0}</td>)}</tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

export interface Bar {
  label: string;
  value: number;
  /** What the bar shows as text, e.g. "42% (21 of 50)". */
  text: string;
  className?: string;
}

export function BarChart({ id, title, bars, max, empty }: { id: string; title: string; bars: Bar[]; max?: number; empty: string }) {
  const top = max ?? Math.max(1, ...bars.map((b) => b.value));
  return (
    <figure class="chart bars">
      <figcaption id={`${id}-title`}>{title}</figcaption>
      {bars.length === 0 ? <p class="muted">{empty}</p> : (
        <ul class="bar-list" aria-labelledby={`${id}-title`}>
          {bars.map((b) => (
            <li key={b.label}>
              <span class="bar-label">{b.label}</span>
              <svg class="bar-track" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
                <rect x="0" y="0" width="100" height="10" class="track" />
                <rect x="0" y="0" width={Math.max(0, Math.min(100, (b.value / top) * 100))} height="10" class={`fill ${b.className ?? ''}`} />
              </svg>
              <span class="bar-value">{b.text}</span>
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}
