// Configuration read on every request (API keys, applications, templates, security settings, whether
// any webhook subscription exists) kept in memory for as long as nothing could have changed it. The
// store hands a `version` that changes whenever configuration may have changed, by this process or any
// other: on SQLite, PRAGMA data_version (bumped by every other connection's commit, e.g. `twofa keys
// revoke` run beside a server) together with a counter of this connection's own writes to the
// configuration tables; on PostgreSQL, the configuration counter read with every API key, this
// node's own writes and the notifications of other nodes' (postgres/config-version.ts). So a revoked
// key or an edited application is seen by the very next request, as without a cache.

/** Returns a value that changes whenever cached configuration may be stale. */
export type ConfigVersion = () => string;

/** Entries kept at most; a cache that fills up starts again (keys are per API key and application). */
const MAX_ENTRIES = 10_000;

export class ConfigCache {
  private version: string | undefined;
  private readonly entries = new Map<string, unknown>();

  constructor(private readonly currentVersion: ConfigVersion) {}

  /** The cached value of `key`, or what `load` reads (kept unless configuration changed meanwhile). */
  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const version = this.currentVersion();
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    if (this.entries.has(key)) return this.entries.get(key) as T;
    const value = await load();
    // A write between the read and now may have made the value stale: use it, but do not keep it.
    if (this.currentVersion() === version) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      // Frozen: a caller that changed a cached record in place would change it for every later caller.
      this.entries.set(key, deepFreeze(value));
    }
    return value;
  }
}

/** A read-through stand-in where there is no version to trust (a store opened without one; PostgreSQL's webhook subscriptions). */
export const UNCACHED = { get: <T>(_key: string, load: () => Promise<T>): Promise<T> => load() };

export type ConfigReader = Pick<ConfigCache, 'get'>;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
