// Ids are time-ordered (see newId in ids.ts): their first 48 bits are the milliseconds at which they
// were made. An id made when a record was written tells when without reading the record.

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
// 26 base32 characters carry 130 bits for the 128 of the id: the time is bits 127..80.
const TIME_SHIFT = 80n;

/** When one of our ids was made (to the millisecond); undefined for a string that is not one. */
export function timeOfId(id: string): Date | undefined {
  const body = id.slice(id.indexOf('_') + 1);
  if (body.length !== 26) return undefined;
  let value = 0n;
  for (const char of body) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) return undefined;
    value = (value << 5n) | BigInt(digit);
  }
  return new Date(Number(value >> TIME_SHIFT));
}
