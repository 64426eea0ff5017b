/** /zipcode: the landing page visitors reach from ad campaigns (spec section 2). */
import { SiteHeader } from "../components/SiteHeader";
import { SiteFooter } from "../components/SiteFooter";
import { ZipForm } from "../components/ZipForm";
import { CarrierLogos } from "../components/CarrierLogos";
import { BenefitBlocks } from "../components/BenefitBlocks";
import { useLandingKnobs } from "../landing-knobs";
import familySvg from "../../public/images/family.svg?raw";

/**
 * The hero picture, the page's largest element on a phone, travels inside the HTML as a data URI
 * (3 KB of SVG, ~1.4 KB gzip): it paints with the first paint instead of a round trip after the
 * HTML on a slow phone network. Whitespace runs are collapsed, not removed, so text and attribute
 * values keep their spaces. The browser's bundle does not carry it (issue 12): hydration reads
 * the address from the server's own <img>, so the two match; a landing page the browser renders
 * itself (a navigation inside the site) shows the file in public/images/.
 */
const FAMILY_PICTURE_FILE = "/images/family.svg";
const familyPicture = import.meta.env.SSR
  ? `data:image/svg+xml,${encodeURIComponent(familySvg.replace(/\s+/g, " ").trim())}`
  : (document.querySelector("img.hero-image")?.getAttribute("src") ?? FAMILY_PICTURE_FILE);

export function LandingPage() {
  // A running experiment's values (issue 45); the control's words where it changes nothing.
  const knobs = useLandingKnobs();
  return (
    <div className="page">
      <SiteHeader />
      <main id="main" className="landing">
        <section className="hero">
          <div className="container hero-inner">
            <div className="hero-copy">
              <h1>{knobs["landing.headline"] ?? "Compare Free Car Insurance Quotes"}</h1>
              <p className="hero-lead">See what top insurers would charge you, in minutes. Free, with no obligation.</p>
              <ZipForm buttonText={knobs["landing.buttonText"]} />
            </div>
            <img
              className="hero-image"
              src={familyPicture}
              width="480"
              height="360"
              alt="A smiling family of four standing beside their car"
            />
          </div>
        </section>
        <div className="container">
          {knobs["landing.carrierLogos"] !== false && <CarrierLogos />}
          <BenefitBlocks />
        </div>
      </main>
      <SiteFooter />
    </div>
  );
}
