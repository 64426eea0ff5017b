/** shared/vin.ts: the VIN checks that need no data (49 CFR 565). */
import { describe, expect, it } from "vitest";
import { checkVin, normalizeVin, vinCheckDigit, vinModelYear } from "../../shared/vin";

/** A VIN with its check digit put in, from any 17 characters. */
const withCheckDigit = (vin: string) => vin.slice(0, 8) + vinCheckDigit(vin) + vin.slice(9);

describe("vinCheckDigit", () => {
  it("computes the check digit of published VINs", () => {
    // 49 CFR 565's worked example and a well-known 2003 Honda Accord.
    expect(vinCheckDigit("1M8GDM9AXKP042788")).toBe("X");
    expect(vinCheckDigit("1HGCM82633A004352")).toBe("3");
  });

  it("transliterates letters by the regulation's table, not by alphabet position", () => {
    // J is 1 and S is 2 (not 10 and 19): only the table gives this VIN's digit.
    expect(vinCheckDigit("JS1GR7KA0B2100001")).toBe(vinCheckDigit("121GR7KA0B2100001"));
    expect(vinCheckDigit("11111111111111111")).toBe("1");
  });

  it("writes X for a remainder of 10", () => {
    expect(checkVin("1M8GDM9AXKP042788")).toMatchObject({ ok: true });
  });
});

describe("vinModelYear", () => {
  it("reads position 10 in the 1980–2009 cycle when position 7 is a digit", () => {
    expect(vinModelYear("1HGCM82633A004352")).toBe(2003);
    expect(vinModelYear("1G1AA1110BA000000")).toBe(1981);
    expect(vinModelYear("1G1AA1119YA000000")).toBe(2000);
  });

  it("reads the 2010–2039 cycle when position 7 is a letter", () => {
    expect(vinModelYear("4T1B11HK6LU123456")).toBe(2020);
    expect(vinModelYear("1FTEW1EP4JF123456")).toBe(2018);
    expect(vinModelYear("5YJ3E1EA2KF317000")).toBe(2019);
    expect(vinModelYear("4T1B11HK01U000000")).toBe(2031);
  });

  it("has no year for codes the regulation does not use", () => {
    for (const code of ["0", "U", "Z"]) expect(vinModelYear(`4T1B11HK0${code}U000000`)).toBeUndefined();
  });
});

describe("checkVin", () => {
  it("accepts a valid VIN, trimmed and in upper case, with its model year", () => {
    expect(normalizeVin("  4t1b11hk6lu123456 ")).toBe("4T1B11HK6LU123456");
    expect(checkVin("  4t1b11hk6lu123456 ")).toEqual({ ok: true, vin: "4T1B11HK6LU123456", year: 2020 });
  });

  it("refuses the wrong length, letters outside the VIN alphabet and a wrong check digit", () => {
    expect(checkVin("4T1B11HK6LU12345")).toMatchObject({ ok: false, problem: "malformed", message: expect.stringContaining("16") });
    expect(checkVin("")).toMatchObject({ ok: false, problem: "malformed" });
    for (const letter of ["I", "O", "Q", "-"]) {
      expect(checkVin(`4T1B11HK6LU12345${letter}`)).toMatchObject({ ok: false, problem: "malformed" });
    }
    expect(checkVin("4T1B11HK7LU123456")).toMatchObject({ ok: false, problem: "check_digit" });
  });

  it("refuses a VIN whose position 10 is no year code, even with a right check digit", () => {
    expect(checkVin(withCheckDigit("4T1B11HK0ZU123456"))).toMatchObject({ ok: false, problem: "year" });
  });
});
