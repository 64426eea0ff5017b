/**
 * The consent-proof providers' scripts (issue 44): TrustedForm's certify script and Jornaya's
 * LeadiD campaign script, loaded as their snippets load them (an async script element added to
 * the page, after the form is in it: TrustedForm adds its hidden input only to forms already
 * there), but from the list the session brings, since this static page can carry no inline
 * snippet (no nonce; the CSP allows the providers' origins on this page only). Each script writes
 * its value into a hidden input of the form; the send reads them (submit.ts).
 */
import { LEADID_INPUT, LEADID_TOKEN_MAX_LENGTH, TRUSTEDFORM_CERT_URL_MAX_LENGTH, TRUSTEDFORM_FIELD, type ProofScript } from "../../shared/lead/api";

/** Adds each script once (a second session, after a failed one, adds nothing), with the hidden input it expects. */
export function loadProofScripts(form: HTMLFormElement, scripts: readonly ProofScript[] | undefined): void {
  for (const script of scripts ?? []) {
    if (document.getElementById(script.id)) continue;
    if (script.input && !document.getElementById(script.input.id)) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.id = script.input.id;
      input.name = script.input.name;
      form.append(input);
    }
    const element = document.createElement("script");
    element.id = script.id;
    element.async = true;
    element.src = script.src;
    document.body.append(element);
  }
}

/** What the providers' scripts wrote, as the envelope carries it (shared/lead/api.ts). */
export interface ProofValues {
  trustedFormCertUrl?: string;
  leadidToken?: string;
}

/**
 * A value the server would refuse as too long is left out rather than sent: a provider's fault
 * must not cost the visitor their request (the lead then goes without it, as if the script had
 * not run, and a buyer that requires the proof is skipped).
 */
function valueOf(input: HTMLInputElement | null, maxLength: number): string | undefined {
  const value = input?.value.trim() ?? "";
  return value !== "" && value.length <= maxLength ? value : undefined;
}

/** The certificate URL and the token, when the scripts ran and filled their inputs in. */
export function proofValues(form: HTMLFormElement): ProofValues {
  // TrustedForm adds its input to every form on the page; ours is the one that matters.
  const certUrl = valueOf(form.querySelector<HTMLInputElement>(`input[name="${TRUSTEDFORM_FIELD}"]`), TRUSTEDFORM_CERT_URL_MAX_LENGTH);
  const leadid = document.getElementById(LEADID_INPUT.id);
  const token = valueOf(leadid instanceof HTMLInputElement ? leadid : null, LEADID_TOKEN_MAX_LENGTH);
  return { ...(certUrl ? { trustedFormCertUrl: certUrl } : {}), ...(token ? { leadidToken: token } : {}) };
}
