// @vitest-environment happy-dom
// @vitest-environment-options {"settings":{"handleDisabledFileLoadingAsSuccess":true}}
/**
 * The consent-proof providers' scripts on the quote form (issue 44): loaded from the list the
 * session brings, each once, with the hidden input Jornaya's snippet expects; what they write into
 * the form is sent with the request, and nothing is sent when they did not run.
 */
import { afterEach, describe, expect, it } from "vitest";
import { loadProofScripts } from "../../../client/quote-form/proof-scripts";
import { LEADID_TOKEN_MAX_LENGTH, TRUSTEDFORM_CERT_URL_MAX_LENGTH, type ProofScript } from "../../../shared/lead/api";
import { $, fakeServer, fillAll, openForm, pressNext, settle } from "./harness";

afterEach(() => {
  document.body.innerHTML = "";
});

// Never fetched: happy-dom runs no script files here (each counts as loaded: the options above); the tests write the inputs themselves.
const TRUSTEDFORM: ProofScript = { src: "https://proof.invalid/trustedform.js?field=xxTrustedFormCertUrl&use_tagged_consent=true&l=1", id: "xxTrustedFormScript" };
const LEADID: ProofScript = { src: "https://proof.invalid/campaign/abc.js?snippet_version=2", id: "LeadiDscript_campaign", input: { id: "leadid_token", name: "universal_leadid" } };
const CERT_URL = "https://cert.trustedform.com/0123456789abcdef0123456789abcdef01234567";
const TOKEN = "01234567-89AB-CDEF-0123-456789ABCDEF";

/** A form whose session names these scripts. */
async function openWith(scripts: ProofScript[] | undefined) {
  const server = fakeServer();
  const base = server.openSession.getMockImplementation()!;
  server.openSession.mockImplementation(async () => ({ ...(await base()), ...(scripts ? { proofScripts: scripts } : {}) }));
  const { submitLead } = server;
  await openForm(undefined, { openSession: server.openSession, submitLead });
  await settle();
  return server;
}

/** What TrustedForm's script does: a hidden input of its own in the form; Jornaya's fills the one the snippet put there. */
function runScripts(certUrl: string, token: string): void {
  const input = document.createElement("input");
  input.type = "hidden";
  input.name = "xxTrustedFormCertUrl";
  input.id = "xxTrustedFormCertUrl_0";
  input.value = certUrl;
  $("#rf-form").append(input);
  $<HTMLInputElement>("#leadid_token").value = token;
}

const scriptsOnPage = () => [...document.querySelectorAll<HTMLScriptElement>("script")].map((script) => ({ id: script.id, src: script.getAttribute("src"), async: script.async }));

describe("the consent-proof scripts", () => {
  it("are added once each, as the session lists them, with Jornaya's hidden input in the form", async () => {
    await openWith([TRUSTEDFORM, LEADID]);
    expect(scriptsOnPage()).toEqual([
      { id: TRUSTEDFORM.id, src: TRUSTEDFORM.src, async: true },
      { id: LEADID.id, src: LEADID.src, async: true },
    ]);
    const input = $<HTMLInputElement>("#rf-form #leadid_token");
    expect([input.type, input.name, input.value]).toEqual(["hidden", "universal_leadid", ""]);
    // A later session (after a failed one) adds nothing again.
    loadProofScripts($<HTMLFormElement>("#rf-form"), [TRUSTEDFORM, LEADID]);
    expect(scriptsOnPage()).toHaveLength(2);
    expect(document.querySelectorAll("#leadid_token")).toHaveLength(1);
  });

  it("sends the certificate URL and the token the scripts wrote", async () => {
    const server = await openWith([TRUSTEDFORM, LEADID]);
    runScripts(CERT_URL, TOKEN);
    await fillAll();
    await pressNext();
    expect(server.submitLead).toHaveBeenCalledTimes(1);
    expect(server.submitLead.mock.calls[0]![1]).toMatchObject({ trustedFormCertUrl: CERT_URL, leadidToken: TOKEN });
  });

  it("sends neither when the scripts wrote nothing, or something too long for the server to take", async () => {
    const server = await openWith([TRUSTEDFORM, LEADID]);
    runScripts("x".repeat(TRUSTEDFORM_CERT_URL_MAX_LENGTH + 1), "t".repeat(LEADID_TOKEN_MAX_LENGTH + 1));
    await fillAll();
    await pressNext();
    const body = server.submitLead.mock.calls[0]![1];
    expect(body).not.toHaveProperty("trustedFormCertUrl");
    expect(body).not.toHaveProperty("leadidToken");
  });

  it("are not loaded when the session lists none (both providers off), and nothing is sent", async () => {
    const server = await openWith(undefined);
    expect(scriptsOnPage()).toEqual([]);
    expect(document.querySelector("#leadid_token")).toBeNull();
    await fillAll();
    await pressNext();
    const body = server.submitLead.mock.calls[0]![1];
    expect(body).not.toHaveProperty("trustedFormCertUrl");
    expect(body).not.toHaveProperty("leadidToken");
  });
});
