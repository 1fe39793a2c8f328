// The README is the guide and docs/ the reference: the README opens with the two commands, its map
// links every page under docs/, and every relative link of the README and docs/ (the npm package
// ships both) leads to a file that exists and, for `#anchor`, to a heading of that file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../support/server-process.js';

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(rel);
    return entry.name.endsWith('.md') ? [rel] : [];
  });
}

const read = (rel: string) => fs.readFileSync(path.join(PROJECT_ROOT, rel), 'utf8');

/** The text outside fenced code blocks, where links and headings are markdown. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, text] of prose(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const base = text!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** Targets of the file's inline links and images, outside code (`[x](y)` in backticks is not a link). */
function links(markdown: string): string[] {
  const text = prose(markdown).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

const pages = ['README.md', ...markdownFiles('docs')];

describe('README and docs/', () => {
  it('the README says first how to run the service and the tests', () => {
    const opening = read('README.md').split('\n').slice(0, 20).join('\n');
    assert.match(opening, /^ {4}npm ci && npm start$/m);
    assert.match(opening, /^ {4}npm ci && npm test$/m);
  });

  it('the README\'s map links every page under docs/', () => {
    const linked = new Set(links(read('README.md')).map((target) => path.posix.normalize(target.split('#')[0]!)));
    for (const page of markdownFiles('docs')) assert.ok(linked.has(page), `README.md links ${page}`);
  });

  for (const page of pages) {
    it(`every relative link of ${page} resolves`, () => {
      const targets = links(read(page)).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
      for (const target of targets) {
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const resolved = file === '' ? page : path.posix.join(path.posix.dirname(page), decodeURIComponent(file));
        assert.ok(fs.existsSync(path.join(PROJECT_ROOT, resolved)), `${page}: ${target} names a file that does not exist`);
        if (anchor !== undefined) {
          assert.ok(resolved.endsWith('.md'), `${page}: ${target} has an anchor into a file that is not markdown`);
          assert.ok(anchors(read(resolved)).has(decodeURIComponent(anchor)), `${page}: ${target}: ${resolved} has no heading with anchor #${anchor}`);
        }
      }
    });
  }

  it('finds links and anchors as GitHub does (a broken link cannot pass unseen)', () => {
    assert.deepEqual(links('[a](x.md) `[b](y.md)` ![c](d.png "t")\n```\n[e](z.md)\n```\n'), ['x.md', 'd.png']);
    assert.deepEqual([...anchors('# The service\'s own API (`/api/v1`)\n## Events (webhook subscriptions)\n## Events (webhook subscriptions)\n```\n# not a heading\n```\n')],
      ['the-services-own-api-apiv1', 'events-webhook-subscriptions', 'events-webhook-subscriptions-1']);
  });
});
