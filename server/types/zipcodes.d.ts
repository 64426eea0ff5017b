/** The parts of the `zipcodes` package (CommonJS, no bundled types) that server/zip-codes.ts uses. */
declare module "zipcodes" {
  export interface ZipCodeEntry {
    zip: string;
    city: string;
    /** Two-letter state or territory code for US entries; a province name for Canadian ones. */
    state: string;
    country: string;
    latitude: number;
    longitude: number;
  }
  export function lookup(zip: string | number): ZipCodeEntry | undefined;
  const zipcodes: { lookup: typeof lookup };
  export default zipcodes;
}
