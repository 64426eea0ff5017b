/** The city and state of a ZIP code, as GET /api/zip-codes/:zip answers. */
export interface ZipLocation {
  zip: string;
  city: string;
  state: string;
}
