/**
 * The optional VIN (issue 13): once the visitor has typed 17 characters that pass the check digit
 * (shared/vin.ts, no server needed), the catalog decodes it (GET /api/vehicles/vin/:vin) and the
 * year, make and model are filled in, said in the live region. A VIN the catalog cannot decode
 * changes nothing: the visitor picks the car as before. The field's own rule gives the message for
 * a mistyped VIN.
 */
import { OTHER_MAKE } from "../../shared/vehicles";
import { checkVin } from "../../shared/vin";
import type { DecodedVin } from "./api";
import type { View } from "./view";

/** `filled` gets what was said, for a form that moves on to say it again with the next question. */
export function watchVin(view: View, decodeVin: (vin: string) => Promise<DecodedVin | null>, filled: (said: string) => void): void {
  const [input] = view.controlsOf("vin");
  const [model] = view.controlsOf("model");
  if (!input || !model) throw new Error("The quote form needs its VIN and model fields");
  let asked = "";

  const has = (field: string, value: string) => view.controlsOf(field).some((option) => option.value === value);

  input.addEventListener("input", () => {
    const checked = checkVin(input.value);
    if (!checked.ok || checked.vin === asked) return;
    asked = checked.vin;
    void decodeVin(checked.vin)
      .catch(() => null)
      .then((decoded) => {
        // The visitor may have typed on meanwhile.
        if (!decoded || checkVin(input.value).ok === false || asked !== decoded.vin) return;
        if (has("year", String(decoded.year))) view.writeRaw(["year"], { year: String(decoded.year) });
        view.writeRaw(["make"], { make: has("make", decoded.make) ? decoded.make : OTHER_MAKE });
        if (decoded.model) model.value = decoded.model;
        for (const field of ["year", "make", "model", "vin"]) view.showError(field, undefined);
        const said = `Filled in from the VIN: ${[decoded.year, decoded.make, decoded.model].filter(Boolean).join(" ")}.`;
        view.announce(said);
        filled(said);
      });
  });
}
