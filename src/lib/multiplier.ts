// A team's price multiplier (new-api's group ratio), applied the one way everywhere: a charge is
// rounded to a millionth first (so that 10 × 1.1 is 11 and not 12), then up to a whole credit.

/** The credits a team is charged for an item whose list price is `credits`. */
export function scaleCharge(credits: number, multiplier: number): number {
  return multiplier === 1 ? credits : Math.ceil(scaleRate(credits, multiplier));
}

/** A rate (credits per second, per 1,000 tokens) times the multiplier, to the millionth. */
export function scaleRate(rate: number, multiplier: number): number {
  return multiplier === 1 ? rate : Math.round(rate * multiplier * 1e6) / 1e6;
}
