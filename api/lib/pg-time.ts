/**
 * PostgreSQL's dates and timestamps as the driver reads and writes them (api/db.ts), exact for every
 * year PostgreSQL stores that a JavaScript Date can hold (up to 275760; PostgreSQL's dates go further).
 *
 * postgres.js parsed them with `new Date(text)`, and V8 reads PostgreSQL's text output
 * (`0010-01-31 00:00:00+00`, not ISO-8601: a space, a short offset) with its legacy parser, which takes
 * a year under 100 for 19xx or 20xx (`0010-01-31` came back as 2030-10-01, `0026-11-29` as an invalid
 * date) and knows nothing of ` BC`, of years over 9999 or of offsets with seconds (the local mean time
 * of years before a zone's standard time, `+00:38:48`). These read the text field by field instead.
 *
 * The text is DateStyle ISO's, PostgreSQL's default. Values are Dates, as before: a `date` is its day
 * at midnight UTC, a `timestamp` (without time zone) its wall time taken as UTC, a `timestamptz` its
 * instant. Fractions of a millisecond are dropped (PostgreSQL keeps microseconds), as `to_char(.., 'MS')`
 * and V8 drop them. `infinity` and `-infinity`, and what no Date holds, read as an invalid Date, as
 * before; text in another DateStyle is left to `new Date` as before.
 *
 * The worker's own pools (graphile-worker, node-postgres) read timestamps with postgres-date, which
 * handles years 0 to 99, BC and offsets with seconds too; its tasks read days as text (`to_char`), and
 * those that use the API's queries build their pool with createSql.
 */

const DAY = /^(\d{4,})-(\d{2})-(\d{2})( BC)?$/;
const TIME = /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?)?( BC)?$/;

/** Milliseconds since the epoch of a UTC wall time; `year` astronomical (0 is 1 BC). NaN beyond a Date's range. */
function utc(year: number, month: number, day: number, hours = 0, minutes = 0, seconds = 0, ms = 0): number {
  const date = new Date(0);
  // Unlike Date.UTC, setUTCFullYear takes years 0 to 99 as they are.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hours, minutes, seconds, ms);
  return date.getTime();
}

/** PostgreSQL writes 1 BC, 2 BC...; a Date counts 0, -1... */
const astronomical = (year: string, bc: string | undefined) => (bc ? 1 - Number(year) : Number(year));

/** A `date`: its day at midnight UTC. */
export function parseDate(text: string): Date {
  const match = DAY.exec(text);
  if (!match) return new Date(text);
  const [, year, month, day, bc] = match;
  return new Date(utc(astronomical(year!, bc), Number(month), Number(day)));
}

/** A `timestamp` (`withZone` false: its wall time taken as UTC) or a `timestamptz` (its instant, whatever the session's TimeZone). */
function parseTime(text: string, withZone: boolean): Date {
  const match = TIME.exec(text);
  if (!match || (match[8] !== undefined) !== withZone) return new Date(text);
  const [, year, month, day, hours, minutes, seconds, fraction = '', sign, offsetHours, offsetMinutes = '0', offsetSeconds = '0', bc] = match;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const wall = utc(astronomical(year!, bc), Number(month), Number(day), Number(hours), Number(minutes), Number(seconds), ms);
  const offset = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60 + Number(offsetSeconds)) * 1000;
  return new Date(wall - offset);
}

export const parseTimestamp = (text: string): Date => parseTime(text, false);
export const parseTimestamptz = (text: string): Date => parseTime(text, true);

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * A Date as PostgreSQL reads it, in UTC, whatever its year: `0010-01-31 00:00:00.000+00`,
 * `12345-01-01 ...`, `0001-01-01 ... BC` (toISOString's `+012345-` and `-000001-` are no PostgreSQL
 * input). Any other value is read by `new Date` first, as the driver did; text a Date cannot read is
 * left for PostgreSQL to read (or refuse). An invalid Date throws toISOString's RangeError, as before.
 */
export function serializeTime(value: unknown): string {
  const date = value instanceof Date ? value : new Date(value as string);
  if (Number.isNaN(date.getTime())) {
    if (typeof value === 'string') return value;
    return date.toISOString();
  }
  const year = date.getUTCFullYear();
  const day = `${pad(year > 0 ? year : 1 - year, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}`;
  const time = `${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}.${pad(date.getUTCMilliseconds(), 3)}`;
  return `${day} ${time}+00${year > 0 ? '' : ' BC'}`;
}
