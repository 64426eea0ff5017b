/**
 * Redirect targets must stay on this site. A Location of "//evil.example" or "/\evil.example"
 * is read by browsers as another host, so only a single leading slash followed by a path
 * character is accepted.
 */
export function isSafeRelativeLocation(location: string): boolean {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return /^\/(?![/\\])[^\s\\]*$/.test(location) && !/[\u0000-\u001f\u007f]/.test(location);
}
