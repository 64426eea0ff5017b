import { site } from "../../shared/site";

const benefits = [
  {
    id: "free",
    title: "Free Quotes",
    text: "Comparing costs you nothing, and there is no obligation to buy.",
    icon: "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20Zm1 15h-2v-1.1c-1.3-.3-2.4-1.1-2.5-2.6h1.8c.1.8.7 1.3 1.9 1.3 1.3 0 1.6-.6 1.6-1 0-.6-.3-1.1-1.9-1.5-1.8-.4-3-1.1-3-2.6 0-1.2 1-2.1 2.1-2.4V6h2v1.1c1.3.3 2 1.3 2.1 2.4h-1.8c0-.8-.5-1.3-1.5-1.3s-1.5.4-1.5 1c0 .5.4.9 1.9 1.2 1.6.4 3 1 3 2.8 0 1.3-1 2.2-2.2 2.5V17Z",
  },
  {
    id: "save",
    title: `Save up to ${site.maxSavingsPercent}%`,
    text: "Drivers who compare insurers often find the same cover for much less.",
    icon: "M3 17.5 9 11.5l4 4 8-8V13h2V4h-9v2h5.5L13 12.5l-4-4-7.5 7.5L3 17.5Z",
  },
  {
    id: "easy",
    title: "Easy 3-Step Process",
    text: "Tell us about your car, your driving and how to reach you. That is all.",
    icon: "M9 16.2 4.8 12l-1.4 1.4L9 19 21 7l-1.4-1.4L9 16.2Z",
  },
] as const;

/** The three benefit blocks of the promotional section (spec section 2). */
export function BenefitBlocks() {
  return (
    <section className="benefits" aria-labelledby="benefits-heading">
      <h2 id="benefits-heading" className="visually-hidden">
        Why compare with {site.productName}
      </h2>
      <ul className="benefit-list">
        {benefits.map((benefit) => (
          <li key={benefit.id} className="benefit" data-benefit={benefit.id}>
            <svg className="benefit-icon" width="40" height="40" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
              <path d={benefit.icon} fill="currentColor" />
            </svg>
            <h3>{benefit.title}</h3>
            <p>{benefit.text}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
