// The operator's price list (TWOFA_PRICES_FILE): what one message (one SMS part) costs through a transport.
/** A price as a decimal string, never a float: "0.0450". */
export interface Price {
  amount: string;
  currency: string;
}

/** The line of the price list that priced a message: its transport, ISO country and prefix (null: the whole country). */
export interface PriceMatch extends Price {
  transport: string;
  country: string;
  prefix: string | null;
}

/** Looks up the price of one message through `transport` to `to` (E.164 digits without '+'): longest prefix first, then the country. */
export interface PriceList {
  priceOf(transport: string, to: string): PriceMatch | undefined;
}
