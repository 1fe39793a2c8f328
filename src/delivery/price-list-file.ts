// The price list of TWOFA_PRICES_FILE as the node holds it: read at start, read again on SIGHUP and on
// `twofa prices reload` (POST /api/v1/prices/reload). A reload that finds an invalid file keeps the
// list in force and reports why, so a typo in production never unprices the traffic.
import { readFile } from 'node:fs/promises';
import { phoneCountry } from '../domain/destinations.js';
import { parsePriceList, type ParsedPriceList } from '../domain/price-list.js';
import type { PriceList, PriceMatch } from '../domain/prices.js';

/** What a (re)load found: the lines now in force and where they came from. */
export interface PriceListState {
  file: string | null;
  lines: readonly PriceMatch[];
  loadedAt: number | null;
}

export class PriceListFile implements PriceList {
  private list: ParsedPriceList | undefined;
  private loadedAt: number | null = null;

  private constructor(readonly file: string | undefined, private readonly clock: () => number) {}

  /** Reads the file (when there is one); throws PriceListError or the file's read error: a node never starts on a list it cannot read. */
  static async open(file: string | undefined, clock: () => number = Date.now): Promise<PriceListFile> {
    const holder = new PriceListFile(file, clock);
    await holder.reload();
    return holder;
  }

  /** Reads the file again; on any error throws and keeps the list in force. */
  async reload(): Promise<PriceListState> {
    if (this.file === undefined) return this.state();
    const text = await readFile(this.file, 'utf8').catch((err: unknown) => {
      throw new Error(`the price list ${this.file} cannot be read: ${err instanceof Error ? err.message : String(err)}`);
    });
    this.list = parsePriceList(text, this.file, phoneCountry);
    this.loadedAt = this.clock();
    return this.state();
  }

  state(): PriceListState {
    return { file: this.file ?? null, lines: this.list?.lines ?? [], loadedAt: this.loadedAt };
  }

  priceOf(transport: string, to: string): PriceMatch | undefined {
    return this.list?.priceOf(transport, to);
  }
}
