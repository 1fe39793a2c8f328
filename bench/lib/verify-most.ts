// Users verify most of the PINs they are sent: the risk score's benches verify 17 sends in 20 with the
// code their message carried (bench/receiver-server.ts keeps it with BENCH_RECEIVER_CODES=1), between
// the rounds they measure. Without it the score would see an application none of whose users ever
// verify, and block more and more of its sends as the bench goes on: the costliest case, not the usual one.

/** The numbers' digits with the PIN id each was sent, as the benches collect them. */
export type SentPins = Map<string, string>;

/** Verifies 17 in 20 of `sent` (the rest are never verified), through `verify`, which throws unless the PIN verified. */
export async function verifyMostPins(sent: SentPins, receiverUrl: string, verify: (pinId: string, pin: string) => Promise<void>): Promise<void> {
  const codes = await (await fetch(`${receiverUrl}/codes`)).json() as Record<string, string>;
  let k = 0;
  for (const [to, pinId] of sent) {
    if (k++ % 20 >= 17) continue;
    const pin = codes[to];
    if (pin === undefined) throw new Error(`no code was delivered to ${to}`);
    await verify(pinId, pin);
  }
  sent.clear();
}

/** The digits of a number as the receiver keys its codes. */
export const digitsOf = (to: string): string => to.replace(/\D/g, '');
