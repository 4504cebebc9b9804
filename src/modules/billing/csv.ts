// CSV as RFC 4180 writes it: CRLF line ends, and a field quoted (with its quotes doubled) when it
// holds a comma, a quote or a line break. Values are written as they are: no formula escaping,
// so that a file read back gives the same values (the ledger's text is the service's own).

type CsvValue = string | number | null | undefined;

function field(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV document: a header row of `columns`, then one row per record, each ending in CRLF. */
export function toCsv<C extends string>(columns: readonly C[], records: Array<Record<C, CsvValue>>): string {
  const lines = [columns.map(field).join(',')];
  for (const record of records) lines.push(columns.map((column) => field(record[column])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * Whether an Accept header asks for CSV rather than JSON: `text/csv` with a quality above zero
 * and at least that of JSON (`application/json`, `application/*` or `*\/*`).
 */
export function acceptsCsvFirst(accept: string | undefined): boolean {
  if (!accept) return false;
  let csv = 0;
  let json = 0;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(quality)) continue;
    if (range === 'text/csv') csv = Math.max(csv, quality);
    else if (range === 'application/json' || range === 'application/*' || range === '*/*')
      json = Math.max(json, quality);
  }
  return csv > 0 && csv >= json;
}
