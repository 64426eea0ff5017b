/**
 * The landing page's ZIP form (spec sections 2 and 5). A plain GET form to /go, so it works
 * without JavaScript; the campaign ids from the current address and this visit's id
 * (client/visit-id.ts) ride along as hidden inputs rendered on the server. With JavaScript,
 * non-digits are stripped as the visitor types or pastes. Native validation (required, pattern, maxLength) blocks a bad submit; no custom
 * messages, as the spec asks. "Why?" is a toggletip: an HTML popover that opens on a tap, a click,
 * Enter or Space without any script, so it works before hydration and costs the first load no
 * JavaScript; a desktop hover also shows it as a tooltip, whose code loads on first hover
 * (LazyTooltip.tsx, decision 029).
 */
import { useEffect, useRef, useSyncExternalStore } from "react";
import { useLocation, useNavigate } from "react-router-dom";
import { notify } from "./Notifications";
import { LazyTooltip } from "./LazyTooltip";
import { CAMPAIGN_PARAMS, ZIP_LENGTH, campaignQueryString, sanitizeZipInput, type Campaign } from "../../shared/campaign-format";
import { INVALID_ZIP_FLAG, paths } from "../../shared/routes";
import { useVisit } from "../visit-id";

const noSubscription = () => () => {};

const WHY_ID = "zip-why-text";
const WHY_TEXT = "Rates depend on where your car is parked. Your ZIP code shows us the insurers that serve your area.";

/** False in the server HTML and during hydration, true once React runs in the browser. */
function useHydrated(): boolean {
  return useSyncExternalStore(noSubscription, () => true, () => false);
}

/** Strips non-digits and cuts to 5 in the field itself (spec 5), leaving it alone when already clean. */
function keepDigits(input: HTMLInputElement): void {
  const clean = sanitizeZipInput(input.value);
  if (clean !== input.value) input.value = clean;
}

/** `buttonText`: an experiment's words for the button (issue 45); the control's when absent. */
export function ZipForm({ buttonText = "Get Your Quote" }: { buttonText?: string | undefined }) {
  // The address's query from useLocation (useSearchParams would add 0.3 KB gzip of router code to this page).
  const { search } = useLocation();
  const navigate = useNavigate();
  // The address's campaign ids, validated by the route's loader (client/visit-id.ts).
  const visit = useVisit();
  const campaign: Campaign = { ...visit.campaign, vid: visit.visitId };
  const inputRef = useRef<HTMLInputElement>(null);
  // Without JavaScript, maxLength keeps the field at 5 characters. With it, the sanitizer does,
  // and maxLength must go: the browser would cut a pasted "(90210)" to "(9021" before the
  // non-digits could be removed.
  const hydrated = useHydrated();
  const sentBack = new URLSearchParams(search).get(INVALID_ZIP_FLAG.key) === INVALID_ZIP_FLAG.value;

  // A string, so re-renders (e.g. after hydration) do not re-run the effect below.
  const campaignQuery = campaignQueryString(campaign);

  // The field is not controlled by React: what a quick visitor typed before the page hydrated (its
  // bundle loads after the first paint, decision 020) stays in it. Hydrated, it is cleaned once.
  useEffect(() => {
    if (inputRef.current) keepDigits(inputRef.current);
  }, []);

  useEffect(() => {
    if (!sentBack) return;
    notify((toast) => toast.error("Please enter a valid 5-digit ZIP code."));
    inputRef.current?.focus();
    // Drop the flag so a reload or a shared link does not repeat the notice.
    void navigate(`${paths.landing}${campaignQuery}`, { replace: true, preventScrollReset: true });
  }, [sentBack, campaignQuery, navigate]);

  return (
    <form className="zip-form" method="get" action={paths.go} aria-label="Start your quote">
      <div className="zip-label-row">
        <label htmlFor="zip">Enter your ZIP code</label>
        <LazyTooltip
          className="zip-why"
          label="Why we ask for your ZIP code"
          content={WHY_TEXT}
          popoverTarget={WHY_ID}
        >
          Why?
        </LazyTooltip>
        {/* Right after its button, so reading on from the button reaches the text. role="status":
            screen readers that announce a live region as it appears read it out when it opens. */}
        <p id={WHY_ID} className="toggletip" popover="auto" role="status">
          {WHY_TEXT}
        </p>
      </div>
      <div className="zip-row">
        <input
          ref={inputRef}
          id="zip"
          name="zip"
          type="text"
          inputMode="numeric"
          autoComplete="postal-code"
          pattern={`[0-9]{${ZIP_LENGTH}}`}
          maxLength={hydrated ? undefined : ZIP_LENGTH}
          required
          placeholder="ZIP code"
          onChange={(event) => keepDigits(event.currentTarget)}
        />
        <button type="submit" className="button-primary">
          {/* One text node with its space, as the static words were: the same HTML for the control. */}
          {`${buttonText} `}
          <span aria-hidden="true">→</span>
        </button>
      </div>
      {CAMPAIGN_PARAMS.map((param) => {
        const value = campaign[param];
        return value ? <input key={param} type="hidden" name={param} value={value} /> : null;
      })}
    </form>
  );
}
