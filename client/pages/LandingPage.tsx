/** /zipcode: the landing page visitors reach from ad campaigns (spec section 2). */
import { SiteHeader } from "../components/SiteHeader";
import { SiteFooter } from "../components/SiteFooter";
import { ZipForm } from "../components/ZipForm";
import { CarrierLogos } from "../components/CarrierLogos";
import { BenefitBlocks } from "../components/BenefitBlocks";

export function LandingPage() {
  return (
    <div className="page">
      <SiteHeader />
      <main id="main" className="landing">
        <section className="hero">
          <div className="container hero-inner">
            <div className="hero-copy">
              <h1>Compare Free Car Insurance Quotes</h1>
              <p className="hero-lead">See what top insurers would charge you, in minutes. Free, with no obligation.</p>
              <ZipForm />
            </div>
            <img
              className="hero-image"
              src="/images/family.svg"
              width="480"
              height="360"
              alt="A smiling family of four standing beside their car"
              decoding="async"
            />
          </div>
        </section>
        <div className="container">
          <CarrierLogos />
          <BenefitBlocks />
        </div>
      </main>
      <SiteFooter />
    </div>
  );
}
