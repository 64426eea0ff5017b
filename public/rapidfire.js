// @ts-check
/**
 * The framed quote form's script (external, so the site's CSP needs no exception). It shows the
 * ZIP code the quote page passed in, keeps only digits as the visitor types, and carries the
 * campaign ids (sid, tid) along when the ZIP is changed. The rules mirror shared/campaign.ts;
 * the multi-step form replaces this page in its own issue.
 */
(function () {
  const ZIP = /^\d{5}$/;
  const CAMPAIGN_ID = /^[A-Za-z0-9._~-]{1,64}$/;
  const params = new URLSearchParams(window.location.search);
  const form = /** @type {HTMLFormElement} */ (document.getElementById("zip-form"));
  const input = /** @type {HTMLInputElement} */ (document.getElementById("zip"));
  const status = /** @type {HTMLElement} */ (document.getElementById("zip-status"));

  const zip = params.get("zip") ?? "";
  if (ZIP.test(zip)) {
    input.value = zip;
    status.textContent = "We will compare car insurance quotes for ZIP code ";
    const strong = document.createElement("strong");
    strong.textContent = zip;
    status.append(strong, ". Not right? Change it below.");
  }

  for (const name of ["sid", "tid"]) {
    const value = params.get(name);
    if (value && CAMPAIGN_ID.test(value)) {
      const hidden = document.createElement("input");
      hidden.type = "hidden";
      hidden.name = name;
      hidden.value = value;
      form.append(hidden);
    }
  }

  input.addEventListener("input", () => {
    const digits = input.value.replace(/\D+/g, "").slice(0, 5);
    if (digits !== input.value) input.value = digits;
  });
})();
