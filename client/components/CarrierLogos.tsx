import { carriers, type Carrier } from "../../shared/site";

/** A carrier's name set as a small SVG wordmark; the name is its accessible name (alt text). */
function CarrierWordmark({ carrier }: { carrier: Carrier }) {
  const width = Math.max(96, carrier.name.length * 11 + 16);
  return (
    <svg
      className="carrier-logo"
      role="img"
      aria-label={carrier.name}
      data-carrier={carrier.id}
      width={width}
      height="40"
      viewBox={`0 0 ${width} 40`}
    >
      <text
        x={width / 2}
        y="26"
        textAnchor="middle"
        fill={carrier.color}
        fontFamily="Arial, Helvetica, sans-serif"
        fontSize="18"
        fontWeight="700"
        letterSpacing="0.3"
      >
        {carrier.name}
      </text>
    </svg>
  );
}

export function CarrierLogos() {
  return (
    <section className="carriers" aria-labelledby="carriers-heading">
      <h2 id="carriers-heading" className="carriers-heading">
        Compare quotes from top insurers
      </h2>
      <ul className="carrier-list">
        {carriers.map((carrier) => (
          <li key={carrier.id}>
            <CarrierWordmark carrier={carrier} />
          </li>
        ))}
      </ul>
    </section>
  );
}
