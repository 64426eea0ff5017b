/**
 * Intl.DateTimeFormat objects, made once per locale and options and kept: building one costs
 * far more than using it (a tenth of a millisecond or more, on every lead and delivery that asks
 * for a date in a time zone).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale} ${JSON.stringify(options)}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(locale, options);
    formatters.set(key, formatter);
  }
  return formatter;
}
