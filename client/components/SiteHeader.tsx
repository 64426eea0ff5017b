import { Link } from "react-router-dom";
import { Logo } from "./Logo";
import { paths } from "../../shared/routes";
import { site } from "../../shared/site";

/** The header on every page; the logo leads to the landing page (spec section 4). */
export function SiteHeader() {
  return (
    <header className="site-header">
      <div className="container site-header-inner">
        <Link to={paths.landing} className="logo-link" aria-label={`${site.productName} home`}>
          <Logo />
        </Link>
      </div>
    </header>
  );
}
