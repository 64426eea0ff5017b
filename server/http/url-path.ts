/** A request target's path without its query string (no URL parsing: it runs on every request). */
export function pathOfUrl(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}
