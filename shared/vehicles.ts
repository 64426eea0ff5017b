/**
 * Vehicle choices for the quote form. No well-kept offline source of US makes and models exists
 * on npm (the NHTSA data is an online API), so makes are a curated list of the brands sold in the
 * US since 1981, and the model is validated text (docs/decisions/006-quote-form.md).
 */

/** 17-character VINs (and insurers' rating tables) start with model year 1981. */
export const OLDEST_VEHICLE_YEAR = 1981;

/** Model years run ahead of the calendar: next year's models are on sale from late summer. */
export function newestVehicleYear(now: Date = new Date()): number {
  return now.getUTCFullYear() + 1;
}

/** Newest first, as people look for a recent car. */
export function vehicleYears(now: Date = new Date()): number[] {
  const years: number[] = [];
  for (let year = newestVehicleYear(now); year >= OLDEST_VEHICLE_YEAR; year -= 1) years.push(year);
  return years;
}

export const OTHER_MAKE = "Other";

/** Brands sold new in the US since 1981, alphabetical; "Other" covers the rest. */
export const VEHICLE_MAKES: readonly string[] = [
  "Acura", "Alfa Romeo", "Aston Martin", "Audi", "Bentley", "BMW", "Buick", "Cadillac", "Chevrolet", "Chrysler",
  "Daewoo", "Dodge", "Eagle", "Ferrari", "Fiat", "Fisker", "Ford", "Genesis", "Geo", "GMC", "Honda", "Hummer",
  "Hyundai", "Infiniti", "Isuzu", "Jaguar", "Jeep", "Kia", "Lamborghini", "Land Rover", "Lexus", "Lincoln",
  "Lucid", "Maserati", "Mazda", "McLaren", "Mercedes-Benz", "Mercury", "Mini", "Mitsubishi", "Nissan",
  "Oldsmobile", "Plymouth", "Polestar", "Pontiac", "Porsche", "Ram", "Rivian", "Rolls-Royce", "Saab", "Saturn",
  "Scion", "Smart", "Subaru", "Suzuki", "Tesla", "Toyota", "VinFast", "Volkswagen", "Volvo", OTHER_MAKE,
];

/**
 * The makes a make question shows before the visitor types: the brands with the most cars on US
 * roads (Experian and S&P Global Mobility registration counts), so most visitors answer with one
 * tap; every other make is one filter away.
 */
export const POPULAR_MAKES: readonly string[] = ["Toyota", "Ford", "Chevrolet", "Honda", "Nissan", "Jeep", "Hyundai", "Kia", "Subaru", "GMC", "Ram", "Tesla"];
