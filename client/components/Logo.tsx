import { site } from "../../shared/site";

/** The product wordmark: a shield with a check, and the name. Decorative parts are hidden from assistive tech. */
export function Logo() {
  return (
    <span className="logo">
      <svg className="logo-mark" width="32" height="32" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
        <path d="M16 2 4 6.5v8.2C4 22.4 9.1 28.3 16 30c6.9-1.7 12-7.6 12-15.3V6.5L16 2Z" fill="#0b5cab" />
        <path d="m10.5 16.2 3.8 3.8 7.4-8" fill="none" stroke="#fff" strokeWidth="2.6" strokeLinecap="round" strokeLinejoin="round" />
      </svg>
      <span className="logo-text">{site.productName}</span>
    </span>
  );
}
