/**
 * What the quote form loads for the consent-proof providers and what its CSP adds for them
 * (server/consent/proof-scripts.ts, issue 44): nothing while both are off; each provider's snippet
 * as documented when on; its origins, and only the documented ones of the real provider.
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config";
import { proofScripts, proofSources } from "../../server/consent/proof-scripts";

/** Jornaya on needs its campaign script (server/config.ts): the real snippet's form of address unless a test gives its own. */
const LEADID_SCRIPT = "https://create.lidstatic.com/campaign/3b513dc6-02b0-336b-0c8d-23896690cc37.js?snippet_version=2";
const config = (env: Record<string, string> = {}) => loadConfig({ NODE_ENV: "test", ...(env.JORNAYA === "on" ? { JORNAYA_SCRIPT_URL: LEADID_SCRIPT } : {}), ...env });

describe("the consent-proof scripts", () => {
  it("are none, and add no source, while both providers are off (the default)", () => {
    expect(proofScripts(config())).toEqual([]);
    expect(proofSources(config())).toEqual({ script: [], connect: [], img: [] });
  });

  it("load TrustedForm's script with its snippet's parameters and a new `l` per page load", () => {
    const [script, ...rest] = proofScripts(config({ TRUSTEDFORM: "on" }), 1_700_000_000_000, 0.25);
    expect(rest).toEqual([]);
    expect(script!.id).toBe("xxTrustedFormScript");
    const src = new URL(script!.src);
    expect(src.origin + src.pathname).toBe("https://api.trustedform.com/trustedform.js");
    expect(Object.fromEntries(src.searchParams)).toEqual({ field: "xxTrustedFormCertUrl", use_tagged_consent: "true", l: "17000000000000.25" });
    expect(proofScripts(config({ TRUSTEDFORM: "on" }))[0]!.src).not.toBe(proofScripts(config({ TRUSTEDFORM: "on" }))[0]!.src);
    // A configured address keeps its own query.
    expect(new URL(proofScripts(config({ TRUSTEDFORM: "on", TRUSTEDFORM_SCRIPT_URL: "http://127.0.0.1:4200/trustedform.js?sandbox=1" }))[0]!.src).searchParams.get("sandbox")).toBe("1");
  });

  it("load Jornaya's campaign script as its snippet does: its id, and the leadid_token input in the form", () => {
    const url = "https://create.lidstatic.com/campaign/3b513dc6-02b0-336b-0c8d-23896690cc37.js?snippet_version=2";
    expect(proofScripts(config({ JORNAYA: "on", JORNAYA_SCRIPT_URL: url }))).toEqual([{ src: url, id: "LeadiDscript_campaign", input: { id: "leadid_token", name: "universal_leadid" } }]);
  });

  it("add the real providers' documented origins to script-src, connect-src and img-src", () => {
    const both = proofSources(config({ TRUSTEDFORM: "on", JORNAYA: "on" }));
    const origins = ["https://api.trustedform.com", "https://cdn.trustedform.com", "https://create.lidstatic.com", "https://*.leadid.com"];
    expect(both).toEqual({ script: origins, connect: origins, img: origins });
    expect(proofSources(config({ TRUSTEDFORM: "on" })).script).toEqual(origins.slice(0, 2));
    expect(proofSources(config({ JORNAYA: "on" })).script).toEqual(origins.slice(2));
  });

  it("add only the script's own origin for a sandbox or a local fake", () => {
    const fake = proofSources(config({ TRUSTEDFORM: "on", TRUSTEDFORM_SCRIPT_URL: "http://127.0.0.1:4200/trustedform.js", JORNAYA: "on", JORNAYA_SCRIPT_URL: "http://127.0.0.1:4200/leadid.js" }));
    expect(fake).toEqual({ script: ["http://127.0.0.1:4200"], connect: ["http://127.0.0.1:4200"], img: ["http://127.0.0.1:4200"] });
    // A look-alike host is not the provider's.
    expect(proofSources(config({ TRUSTEDFORM: "on", TRUSTEDFORM_SCRIPT_URL: "https://api.trustedform.com.evil.test/trustedform.js" })).script).toEqual(["https://api.trustedform.com.evil.test"]);
  });
});
