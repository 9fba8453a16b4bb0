// CSV as spreadsheets read it (RFC 4180): comma-separated cells, CRLF between records, a cell
// quoted when it holds a quote, comma, CR or LF, its quotes doubled. A text cell that starts
// with `=`, `+`, `-` or `@` (or a tab or CR, which some spreadsheets skip before one) would be
// run as a formula when the file is opened: a player's name is the player's to choose, so such a
// cell gets a leading apostrophe and stays text (OWASP, "CSV Injection"). Numbers are written as
// they are, negative ones included: they are ours, not a caller's.

export type CsvCell = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell as it appears in the file. */
export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The records, a header first, as one CSV text ending with a line break. */
export function toCsv(records: ReadonlyArray<ReadonlyArray<CsvCell>>): string {
  return records.map((r) => r.map(csvCell).join(',') + '\r\n').join('');
}
