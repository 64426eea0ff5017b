/**
 * A buyer's form, for ops (issue 33, item 2): every setting of buyerSchema, grouped in fieldsets
 * (who and where, how it buys, when and where from, caps and budgets, price and price rules, the
 * lead filters, the requirements a lead must pass before it is sent). Posted as a plain form; a wrong one comes back 422 with a summary of the problems
 * at the top (each a link to its field) and each problem beside its field. The edit form carries
 * the revision it was read at, so a save over someone else's change is refused (409).
 */
import { adminPaths, buyerPaths, type BuyerFormView } from "../../../shared/admin-views";
import { COVERAGE, INSURED_FOR, MAX_DRIVERS, MAX_VEHICLES } from "../../../shared/lead/fields";
import { US_STATES } from "../../../shared/privacy-request";
import { CheckField, CheckGroup, Group, SelectField, TextAreaField, TextField, type FormState } from "../SettingsFields";
import { SettingsFormPage } from "../SettingsParts";

const WEEKDAYS = [
  ["mon", "Mon"],
  ["tue", "Tue"],
  ["wed", "Wed"],
  ["thu", "Thu"],
  ["fri", "Fri"],
  ["sat", "Sat"],
  ["sun", "Sun"],
] as const;
const STATES = Object.keys(US_STATES).map((code) => [code, code] as const);
/** The coverage choices by their short names ("State minimum: …" → "State minimum"). */
const COVERAGE_CHOICES = Object.entries(COVERAGE).map(([value, label]) => [value, label.split(":")[0] ?? label] as const);
const ANY_YES_NO = [
  ["any", "Any"],
  ["yes", "Yes only"],
  ["no", "No only"],
] as const;
const ANY_NO_ONLY = [
  ["any", "Any"],
  ["no", "None with it"],
  ["only", "Only with it"],
] as const;

/** The line types a buyer may require (server/checks/types.ts LINE_TYPES: Twilio Lookup's line type intelligence), in the words the buyer's page uses. */
const LINE_TYPES = [
  ["mobile", "Mobile"],
  ["landline", "Landline"],
  ["fixedVoip", "Fixed VoIP"],
  ["nonFixedVoip", "Non-fixed VoIP"],
] as const;

/** Names the summary's links say for the fields people most often get wrong. */
const LABELS: Record<string, string> = {
  id: "Id",
  name: "Name",
  url: "Post URL",
  pingUrl: "Ping URL",
  webhookUrl: "Webhook URL",
  price: "Base price",
  states: "States",
  saleTypes: "Sale types",
  "filters.driverAge.max": "Oldest driver",
  "filters.driverAge.min": "Youngest driver",
  "filters.zips.include": "ZIP codes to include",
  "filters.zips.exclude": "ZIP codes to exclude",
  requirements: "Requirements",
  "requirements.trustedForm": "TrustedForm",
  "requirements.leadid": "LeadiD",
  "requirements.litigatorClean": "Phone not on the TCPA litigator list",
  "requirements.noDnc": "Phone on no Do Not Call list",
  "requirements.lineTypes": "Line types",
  "requirements.whenUnavailable": "When a check has no answer",
};

/**
 * What a lead must have passed before it is pinged or posted to the buyer (issue 44). Each is
 * optional; a buyer requiring nothing costs no check. The checks that read the phone run before
 * the post only (a ping carries no contact details).
 */
function RequirementFields({ state }: { state: FormState }) {
  return (
    <Group
      state={state}
      name="requirements"
      legend="Requirements before a lead is sent"
      hint="A lead that fails one is not pinged or posted to this buyer, and the lead's page says why. The phone checks run before the post only."
    >
      <SelectField
        state={state}
        name="requirements.trustedForm"
        label="TrustedForm"
        hint="Retained: we retain the lead's certificate with our TrustedForm account before the post. Claimed: the lead needs a certificate URL on TrustedForm's host, which the buyer claims itself."
        options={[
          ["", "None"],
          ["retained", "We retain the certificate"],
          ["certificate", "The buyer claims it: a certificate URL is enough"],
        ]}
      />
      <SelectField
        state={state}
        name="requirements.leadid"
        label="LeadiD"
        hint="Authentic: Jornaya confirms the lead's token (checked before the ping too). A token: one of the right shape is enough."
        options={[
          ["", "None"],
          ["authentic", "Authentic"],
          ["token", "A token is enough"],
        ]}
      />
      <CheckField state={state} name="requirements.litigatorClean" label="Phone not on the TCPA litigator list" />
      <CheckField state={state} name="requirements.noDnc" label="Phone on no Do Not Call list (federal and the lead's state)" />
      <CheckGroup state={state} name="requirements.lineTypes" label="Line types it takes (none ticked: any)" options={LINE_TYPES} compact />
      <SelectField
        state={state}
        name="requirements.whenUnavailable"
        label="When a check has no answer"
        hint="A provider down or slow. Waiting holds the post and tries again until its attempts run out; a ping is never held (an auction cannot wait)."
        options={[
          ["skip", "Skip this buyer"],
          ["wait", "Wait and try again"],
        ]}
      />
    </Group>
  );
}

/** The lead filters, under `prefix` ("filters" for the buyer's, "priceRules.N.when" for a rule's condition). */
function FilterFields({ state, prefix }: { state: FormState; prefix: string }) {
  const at = (name: string) => `${prefix}.${name}`;
  return (
    <>
      <Group state={state} name={at("zips")} legend="ZIP codes" hint="5-digit codes, separated by commas or spaces. Include: the lead's ZIP must be one of them; exclude: none of them.">
        <TextAreaField state={state} name={at("zips.include")} label="ZIP codes to include" />
        <TextAreaField state={state} name={at("zips.exclude")} label="ZIP codes to exclude" />
      </Group>
      <Group state={state} name={at("zipPrefixes")} legend="ZIP prefixes" hint="1 to 4 digits: 9 is every 9xxxx, 902 every 902xx.">
        <TextAreaField state={state} name={at("zipPrefixes.include")} label="ZIP prefixes to include" />
        <TextAreaField state={state} name={at("zipPrefixes.exclude")} label="ZIP prefixes to exclude" />
      </Group>
      <Group state={state} name={at("driverAge")} legend="Drivers' ages" hint="Every driver's age when the lead is offered.">
        <TextField state={state} name={at("driverAge.min")} label="Youngest driver at least" inputMode="numeric" />
        <TextField state={state} name={at("driverAge.max")} label="Oldest driver at most" inputMode="numeric" />
      </Group>
      <Group state={state} legend="Insurance and home">
        <SelectField state={state} name={at("currentlyInsured")} label="Currently insured" options={ANY_YES_NO} />
        <SelectField state={state} name={at("insuredForAtLeast")} label="Insured for at least" options={[["", "Any time"], ...Object.entries(INSURED_FOR)]} />
        <SelectField state={state} name={at("homeowner")} label="Homeowner" options={ANY_YES_NO} />
      </Group>
      <Group state={state} name={at("vehicles")} legend={`Vehicles (1–${MAX_VEHICLES})`}>
        <TextField state={state} name={at("vehicles.min")} label="Vehicles at least" inputMode="numeric" />
        <TextField state={state} name={at("vehicles.max")} label="Vehicles at most" inputMode="numeric" />
      </Group>
      <Group state={state} name={at("drivers")} legend={`Drivers (1–${MAX_DRIVERS})`}>
        <TextField state={state} name={at("drivers.min")} label="Drivers at least" inputMode="numeric" />
        <TextField state={state} name={at("drivers.max")} label="Drivers at most" inputMode="numeric" />
      </Group>
      <Group state={state} legend="Driving record" hint="The household's accidents, tickets and claims in 3 years, all drivers together (3 means 3 or more).">
        <TextField state={state} name={at("maxAccidents")} label="Accidents at most" inputMode="numeric" />
        <TextField state={state} name={at("maxTickets")} label="Tickets at most" inputMode="numeric" />
        <TextField state={state} name={at("maxClaims")} label="Claims at most" inputMode="numeric" />
        <SelectField state={state} name={at("dui")} label="DUI" options={ANY_NO_ONLY} />
        <SelectField state={state} name={at("sr22")} label="SR-22" options={ANY_NO_ONLY} />
      </Group>
      <CheckGroup state={state} name={at("coverage")} label="Coverage wanted (none ticked: any)" options={COVERAGE_CHOICES} compact />
    </>
  );
}

/** One price rule: its label, the dollars it adds (negative: less), and its condition. */
function RuleRow({ state, index }: { state: FormState; index: number }) {
  const at = (name: string) => `priceRules.${index}.${name}`;
  return (
    <Group state={state} name={`priceRules.${index}`} legend={`Price rule ${index + 1}`} hint="Leave a row empty for no rule. Every condition given must hold.">
      <TextField state={state} name={at("label")} label={`Rule ${index + 1} label`} />
      <TextField state={state} name={at("add")} label={`Rule ${index + 1} dollars to add (negative: less)`} inputMode="decimal" />
      <TextField state={state} name={at("when.states")} label={`Rule ${index + 1} states (e.g. CA, TX; empty: any)`} />
      <SelectField state={state} name={at("when.homeowner")} label={`Rule ${index + 1} homeowner`} options={ANY_YES_NO} />
      <SelectField state={state} name={at("when.currentlyInsured")} label={`Rule ${index + 1} currently insured`} options={ANY_YES_NO} />
      <SelectField state={state} name={at("when.dui")} label={`Rule ${index + 1} DUI`} options={ANY_NO_ONLY} />
      <SelectField state={state} name={at("when.sr22")} label={`Rule ${index + 1} SR-22`} options={ANY_NO_ONLY} />
      <TextField state={state} name={at("when.driverAge.min")} label={`Rule ${index + 1} youngest driver at least`} inputMode="numeric" />
      <TextField state={state} name={at("when.driverAge.max")} label={`Rule ${index + 1} oldest driver at most`} inputMode="numeric" />
      <TextField state={state} name={at("when.zipPrefixes.include")} label={`Rule ${index + 1} ZIP prefixes`} />
      <CheckGroup state={state} name={at("when.coverage")} label={`Rule ${index + 1} coverage wanted`} options={COVERAGE_CHOICES} compact />
    </Group>
  );
}

export function BuyerFormPage({ view }: { view: BuyerFormView }) {
  const state: FormState = { values: view.values, errors: view.errors };
  const creating = view.mode === "create";
  const action = creating || !view.key ? adminPaths.buyers : buyerPaths(view.key).save;
  const title = creating ? "New buyer" : `Edit buyer ${view.key ?? ""}`;
  return (
    <SettingsFormPage
      view={view}
      what="buyer"
      list={{ href: adminPaths.buyers, label: "Buyers", current: "buyers" }}
      paths={buyerPaths}
      title={title}
      action={action}
      labels={LABELS}
      actions={
        <>
          <button type="submit" className="button">
            {creating ? "Create buyer" : "Save buyer"}
          </button>{" "}
          {/* After the save button: Enter in a field submits the form's first button, which must save. */}
          <button type="submit" name="more" value="rules" className="button-secondary">
            More price rule rows
          </button>
        </>
      }
    >
        <Group state={state} legend="The buyer">
          {creating ? <TextField state={state} name="id" label="Id" hint="Lower-case letters, digits, - and _ (at most 32); it never changes." required /> : null}
          <TextField state={state} name="name" label="Name" hint="As the consent names it to the visitor." required />
          <TextField state={state} name="phone" label="Phone" type="tel" hint="A US number the visitor may call (optional)." />
          <SelectField state={state} name="mode" label="Mode" options={[["post", "Post: every matching lead at its price"], ["pingpost", "Ping/post: bids in the auction"]]} />
          <TextField state={state} name="url" label="Post URL" type="url" hint="In production: https:// to a public host (OUTBOUND_ALLOW names exceptions inside your network)." required wide />
          <TextField state={state} name="pingUrl" label="Ping URL" type="url" hint="Ping/post buyers only." wide />
          <TextField state={state} name="webhookUrl" label="Webhook URL" type="url" hint="Consent revocations; its post URL when empty." wide />
          <TextField state={state} name="timeoutMs" label="Post timeout (ms)" inputMode="numeric" />
          <TextField state={state} name="pingTimeoutMs" label="Ping timeout (ms)" inputMode="numeric" />
          <TextField state={state} name="priority" label="Priority (ties: higher wins)" inputMode="numeric" />
          <CheckGroup state={state} name="saleTypes" label="Sale types" hint="A post buyer buys shared only." options={[["shared", "Shared"], ["exclusive", "Exclusive"]]} compact />
          <CheckField state={state} name="sandbox" label="Sandbox: test leads only" hint="For a buyer trying its integration." />
        </Group>

        <Group state={state} name="schedule" legend="When it takes leads">
          <TextField state={state} name="timeZone" label="Time zone (caps and budgets count in it)" hint="IANA name, like America/Chicago; empty: its schedule's, else America/New_York." />
          <CheckField state={state} name="schedule.on" label="Only on a schedule" hint="Unticked: at any time." />
          <TextField state={state} name="schedule.timeZone" label="Schedule's time zone" hint="Empty: the time zone above." />
          <CheckGroup state={state} name="schedule.days" label="Days (none ticked: every day)" options={WEEKDAYS} compact />
          <TextField state={state} name="schedule.from" label="From (HH:MM)" />
          <TextField state={state} name="schedule.to" label="To, not included (HH:MM, 24:00 for midnight)" />
        </Group>

        <CheckGroup state={state} name="states" label="States it takes leads from (none ticked: every state)" options={STATES} compact />

        <Group state={state} name="caps" legend="Caps (leads)" hint="Empty: no cap. 0 takes none.">
          <TextField state={state} name="caps.hour" label="Per hour" inputMode="numeric" />
          <TextField state={state} name="caps.day" label="Per day" inputMode="numeric" />
          <TextField state={state} name="caps.week" label="Per week (Monday to Sunday)" inputMode="numeric" />
          <TextField state={state} name="caps.month" label="Per month" inputMode="numeric" />
        </Group>
        <Group state={state} name="budget" legend="Budget (US dollars)" hint="Empty: no budget.">
          <TextField state={state} name="budget.day" label="Per day ($)" inputMode="decimal" />
          <TextField state={state} name="budget.month" label="Per month ($)" inputMode="decimal" />
        </Group>

        <Group state={state} name="priceRules" legend="Price" hint="The base price of an accepted lead; each matching rule adds its dollars in order (the price never goes below $0).">
          <TextField state={state} name="price" label="Base price ($)" inputMode="decimal" required />
        </Group>
        {Array.from({ length: view.ruleRows }, (_, index) => (
          <RuleRow key={index} state={state} index={index} />
        ))}

        <Group state={state} name="filters" legend="Lead filters" hint="Empty fields take every lead.">
          <FilterFields state={state} prefix="filters" />
        </Group>

        <RequirementFields state={state} />

    </SettingsFormPage>
  );
}
