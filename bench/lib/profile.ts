// Reads a V8 .cpuprofile (node --cpu-prof): self time by function and by package, inclusive time of
// the heaviest frames, and a flame graph as SVG (widths are time; hover for names), no browser needed.
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The bench runs the server compiled into node_modules/.cache/twofa-bench: its files are ours, not a package's. */
const OWN_BUILD = '/twofa-bench/';

function shortUrl(url: string): string {
  if (url === '') return '';
  const own = url.indexOf(OWN_BUILD);
  if (own !== -1) return url.slice(own + OWN_BUILD.length);
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) return url.slice(nm + 'node_modules/'.length);
  const src = url.search(/\/(src|bench)\//);
  if (src !== -1) return url.slice(src + 1);
  return url.replace(/^file:\/\//, '');
}

/** node_modules package, node: internal, our own src/ file, or V8's pseudo frames. */
function categoryOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const own = url.indexOf(OWN_BUILD);
  if (own !== -1) return url.slice(own + OWN_BUILD.length).replace(/\.js$/, '.ts');
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return 'node (internals)';
  const src = url.search(/\/src\//);
  if (src !== -1) return url.slice(src + 1).replace(/\.js$/, '.ts');
  return url;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = shortUrl(url);
  return `${functionName || '(anonymous)'}${where ? ` ${where}:${lineNumber + 1}` : ''}`;
}

const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1).padStart(5)} %`;

export function summarizeProfile(file: string, flameSvgFile?: string): string {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').reduce((sum, n) => sum + (self.get(n.id) ?? 0), 0);
  const busy = total - idle;

  const inclusive = new Map<number, number>();
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const visit = (id: number): number => {
    const node = byId.get(id)!;
    let sum = self.get(id) ?? 0;
    for (const c of node.children ?? []) sum += visit(c);
    inclusive.set(id, sum);
    return sum;
  };
  const roots = profile.nodes.filter((n) => !parentOf.has(n.id));
  for (const r of roots) visit(r.id);

  const selfByFrame = new Map<string, number>();
  const selfByCategory = new Map<string, number>();
  const inclusiveByFrame = new Map<string, number>();
  for (const n of profile.nodes) {
    if (n.callFrame.functionName === '(idle)') continue;
    const name = frameName(n);
    selfByFrame.set(name, (selfByFrame.get(name) ?? 0) + (self.get(n.id) ?? 0));
    const category = categoryOf(n);
    selfByCategory.set(category, (selfByCategory.get(category) ?? 0) + (self.get(n.id) ?? 0));
    // Inclusive per frame name, counting a recursive frame once per stack.
    let ancestor = parentOf.get(n.id);
    let recursive = false;
    while (ancestor !== undefined) {
      if (frameName(byId.get(ancestor)!) === name) { recursive = true; break; }
      ancestor = parentOf.get(ancestor);
    }
    if (!recursive) inclusiveByFrame.set(name, (inclusiveByFrame.get(name) ?? 0) + (inclusive.get(n.id) ?? 0));
  }
  const top = (map: Map<string, number>, count: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count);
  const lines = [
    `sampled ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s (${pct(busy, total).trim()}); shares below are of busy time`,
    '', 'self time by package / file:',
    ...top(selfByCategory, 25).map(([k, v]) => `  ${pct(v, busy)}  ${k}`),
    '', 'self time by function:',
    ...top(selfByFrame, 40).map(([k, v]) => `  ${pct(v, busy)}  ${k}`),
    '', 'inclusive time by function (src/ and bench/ only):',
    ...top(new Map([...inclusiveByFrame].filter(([k]) => / (src|bench)\//.test(k))), 40).map(([k, v]) => `  ${pct(v, busy)}  ${k}`),
  ];
  if (flameSvgFile) fs.writeFileSync(flameSvgFile, flameGraph(profile, byId, inclusive, roots, busy));
  return `${lines.join('\n')}\n`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const PALETTE: Record<string, string> = { fastify: '#f4a259', pino: '#bc4b51', kysely: '#5b8e7d', 'better-sqlite3': '#8cb369', 'node (internals)': '#9aa5b1' };

function flameGraph(profile: CpuProfile, byId: Map<number, ProfileNode>, inclusive: Map<number, number>, roots: ProfileNode[], busy: number): string {
  void profile;
  const width = 1600;
  const rowHeight = 16;
  const rects: string[] = [];
  let maxDepth = 0;
  const place = (id: number, x: number, depth: number) => {
    const node = byId.get(id)!;
    const time = inclusive.get(id) ?? 0;
    const w = (time / busy) * width;
    if (w < 0.5 || node.callFrame.functionName === '(idle)') return;
    maxDepth = Math.max(maxDepth, depth);
    const category = categoryOf(node);
    const color = PALETTE[category] ?? (category.startsWith('src/') ? '#4f6d7a' : category.startsWith('(') ? '#cccccc' : '#e8c547');
    const label = `${frameName(node)} (${((100 * time) / busy).toFixed(1)} %)`;
    rects.push(`<g><title>${escapeXml(label)}</title><rect x="${x.toFixed(1)}" y="${depth * rowHeight}" width="${w.toFixed(1)}" height="${rowHeight - 1}" fill="${color}"/>${
      w > 40 ? `<text x="${(x + 3).toFixed(1)}" y="${depth * rowHeight + 12}" font-size="10" font-family="monospace" fill="#111" clip-path="inset(0)">${escapeXml(frameName(node).slice(0, Math.floor(w / 6.2)))}</text>` : ''}</g>`);
    let childX = x;
    for (const c of node.children ?? []) {
      place(c, childX, depth + 1);
      childX += ((inclusive.get(c) ?? 0) / busy) * width;
    }
  };
  let x = 0;
  for (const r of roots) {
    for (const c of r.children ?? []) {
      place(c, x, 0);
      if (byId.get(c)!.callFrame.functionName !== '(idle)') x += ((inclusive.get(c) ?? 0) / busy) * width;
    }
  }
  const height = (maxDepth + 1) * rowHeight;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">\n${rects.join('\n')}\n</svg>\n`;
}
