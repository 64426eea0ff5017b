/**
 * The numeric fields' digits (client/quote-form/numeric-input.ts, issue 42): what a keystroke or a
 * paste leaves in the field, and where the caret goes.
 */
import { describe, expect, it } from "vitest";
import { caretAfter, dateAsTyped, digitsOf, slashDate } from "../../../client/quote-form/numeric-input";

describe("the numeric fields' text", () => {
  it("keeps the digits of a phone or an age, typed or pasted", () => {
    expect(digitsOf("(415) 555-0134")).toBe("4155550134");
    expect(digitsOf("+1 415.555.0134")).toBe("14155550134");
    expect(digitsOf("16 years")).toBe("16");
    expect(digitsOf("sixteen")).toBe("");
  });

  it("gives the date of birth its slashes as it is typed, and leaves a date typed with its own alone", () => {
    const typed: string[] = [];
    let value = "";
    for (const key of "04151990") typed.push((value = dateAsTyped(value + key)));
    expect(typed).toEqual(["0", "04", "04/1", "04/15", "04/15/1", "04/15/19", "04/15/199", "04/15/1990"]);
    expect(slashDate("04/")).toBe("04/");
    expect(slashDate("4/5/1990")).toBe("4/5/1990");
  });

  it("drops a letter from the date of birth, reads a dash, dot or space as the slash, and puts a year-first date in order", () => {
    expect(dateAsTyped("04a")).toBe("04");
    expect(dateAsTyped("04-")).toBe("04/");
    expect(dateAsTyped("04.15.1990")).toBe("04/15/1990");
    expect(dateAsTyped("04 15 1990")).toBe("04/15/1990");
    expect(dateAsTyped("4-5-1990")).toBe("4/5/1990");
    expect(dateAsTyped("1990-04-15")).toBe("04/15/1990");
    expect(dateAsTyped("1990/4/5")).toBe("04/05/1990");
    expect(dateAsTyped("04//15")).toBe("04/15");
  });

  it("keeps the caret after the same digits, or at the end when it was there", () => {
    // "-" typed after "415": the caret stays after the 5.
    expect(caretAfter("415-5550134", 4, "4155550134")).toBe(3);
    expect(caretAfter("(415", 4, "415")).toBe(3);
    expect(caretAfter("x415", 1, "415")).toBe(0);
    // The date's slash put in after the third digit: the caret follows the digit.
    expect(caretAfter("041", 3, "04/1")).toBe(4);
    expect(caretAfter("04/a15", 4, "04/15")).toBe(3);
  });
});
