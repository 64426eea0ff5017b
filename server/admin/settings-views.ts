/**
 * The console's settings pages' data (issue 33, item 2): a buyer's detail (every setting, secrets
 * and credentials as fingerprints only, its posting spec in words, usage, deliveries in flight,
 * history), the sources list and a source's
 * detail. Secrets never enter these views: the one place a secret is shown is the answer to the
 * create or rotate that made it (server/admin/settings-actions.ts).
 */
import { sql } from "kysely";
import type { Database } from "../db/database";
import type { Buyer, LiveSettings, Source } from "../delivery/buyers";
import { getBuyer, getSource, secretFingerprint, settingsHistory, type ChangeKind, type SettingsChange } from "../settings/store";
import type { BuyerDetailView, SettingRowView, SettingsHistoryRowView, SourceDetailView, SourcesView, SourceSummaryView } from "../../shared/admin-views";
import { buyersView } from "./buyers-view";
import { changeSentences } from "./settings-history";
import { buyerSpecView } from "./buyer-spec";
import { requirementLines } from "./check-words";

/** A buyer's deliveries still to be sent or being sent: they finish whatever its status becomes. */
export async function deliveriesInFlight(db: Database, buyerId: string): Promise<number> {
  const row = await db.builder
    .selectFrom("deliveries")
    .select(sql<string>`count(*)`.as("n"))
    .where("kind", "=", "buyer")
    .where("target", "=", buyerId)
    .where("status", "in", ["pending", "sending"])
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A change as sentences that say what changed and who changed it (server/admin/settings-history.ts). */
export function historyRow(change: SettingsChange): SettingsHistoryRowView {
  return { at: change.at.toISOString(), actor: change.actor, action: change.action, sentences: changeSentences(change) };
}

async function history(db: Database, kind: ChangeKind, key: string): Promise<SettingsHistoryRowView[]> {
  return (await settingsHistory(db.builder, kind, key)).map(historyRow);
}

const money = (dollars: number) => `$${dollars.toFixed(2)}`;
const yes = (value: boolean | undefined, yesText: string, noText: string) => (value === undefined ? undefined : value ? yesText : noText);

/** A filters object in words, one entry per key set ("ZIP codes: include 90210, 90211"). */
export function filterWords(filters: Record<string, unknown> | undefined): string[] {
  if (!filters) return [];
  const words: string[] = [];
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    if (typeof value === "boolean") {
      const text = key === "dui" || key === "sr22" ? yes(value, "only", "none") : yes(value, "yes", "no");
      words.push(`${key}: ${text ?? ""}`);
    } else if (Array.isArray(value)) words.push(`${key}: ${value.join(", ")}`);
    else if (value !== null && typeof value === "object") {
      words.push(
        `${key}: ${Object.entries(value as Record<string, unknown>)
          .map(([part, entry]) => `${part} ${Array.isArray(entry) ? entry.join(", ") : String(entry)}`)
          .join("; ")}`,
      );
    } else words.push(`${key}: ${String(value)}`);
  }
  return words;
}

/** Every setting of a buyer as label and words, secrets left out (the page shows their fingerprints apart). */
export function buyerSettingRows(buyer: Buyer): SettingRowView[] {
  const rows: SettingRowView[] = [
    { label: "Id", value: buyer.id },
    { label: "Name", value: buyer.name },
    { label: "Status", value: buyer.status },
    { label: "Mode", value: buyer.mode },
    { label: "Post URL", value: buyer.url },
    { label: "Ping URL", value: buyer.pingUrl ?? "—" },
    { label: "Webhook URL", value: buyer.webhookUrl ?? "(its post URL)" },
    { label: "Phone", value: buyer.phone ?? "—" },
    { label: "Timeouts", value: `post ${buyer.timeoutMs} ms, ping ${buyer.pingTimeoutMs} ms` },
    { label: "Sale types", value: buyer.saleTypes.join(", ") },
    { label: "Priority", value: String(buyer.priority) },
    { label: "Sandbox (test leads only)", value: buyer.sandbox ? "yes" : "no" },
    { label: "States", value: buyer.states?.join(", ") ?? "every state" },
    { label: "Time zone", value: buyer.timeZone ?? "(its schedule's, else America/New_York)" },
    { label: "Schedule", value: buyer.schedule ? `${buyer.schedule.days.join(", ")} ${buyer.schedule.from}–${buyer.schedule.to} (${buyer.schedule.timeZone})` : "always" },
    { label: "Base price", value: money(buyer.price) },
    {
      label: "Price rules",
      value:
        buyer.priceRules && buyer.priceRules.length > 0
          ? buyer.priceRules.map((rule) => `${rule.label}: ${rule.add < 0 ? "-" : "+"}${money(Math.abs(rule.add))} when ${filterWords(rule.when).join("; ") || "always"}`).join(" · ")
          : "none",
    },
    { label: "Filters", value: filterWords(buyer.filters).join(" · ") || "none (every lead)" },
    { label: "Requirements before a lead is sent", value: requirementLines(buyer.requirements).join(" · ") || "none (no check is run for it)" },
  ];
  return rows;
}

/**
 * GET /buyers/:id, read from the store itself (its revision is the edit form's), so the page just
 * after a change shows it even before this replica's settings reload; undefined when there is no such buyer.
 */
export async function buyerDetailView(db: Database, settings: LiveSettings, id: string, now: Date): Promise<BuyerDetailView | undefined> {
  const stored = await getBuyer(db.builder, id);
  if (!stored) return undefined;
  const buyer = stored.entry;
  const [summary, inFlight, rows] = await Promise.all([buyersView(db, { ...settings, buyers: [buyer] }, now, id), deliveriesInFlight(db, id), history(db, "buyer", id)]);
  const overlapping = buyer.previousSecret !== undefined && buyer.previousSecretUntil !== undefined && Date.parse(buyer.previousSecretUntil) > now.getTime();
  return {
    page: "buyer",
    buyer: summary.buyers[0]!,
    revision: stored.revision,
    settings: buyerSettingRows(buyer),
    secretFingerprint: secretFingerprint(buyer.secret),
    previous: overlapping ? { fingerprint: secretFingerprint(buyer.previousSecret!), until: buyer.previousSecretUntil! } : null,
    inFlight,
    history: rows,
    spec: buyerSpecView(buyer),
  };
}

export function sourceSummary(source: Source): SourceSummaryView {
  return { sid: source.sid, name: source.name ?? null, status: source.status, payout: source.payout, floor: source.floor, postbackUrl: source.postbackUrl ?? null };
}

/** GET /sources: active sources first, then archived ones. */
export function sourcesView(settings: LiveSettings | undefined): SourcesView {
  if (!settings) return { page: "sources", sources: [], configured: false };
  const rank = (source: Source) => (source.status === "archived" ? 1 : 0);
  return { page: "sources", sources: [...settings.sources].sort((a, b) => rank(a) - rank(b)).map(sourceSummary), configured: true };
}

/** GET /sources/:sid, read from the store; undefined when there is no such source. */
export async function sourceDetailView(db: Database, sid: string): Promise<SourceDetailView | undefined> {
  const [stored, rows] = await Promise.all([getSource(db.builder, sid), history(db, "source", sid)]);
  if (!stored) return undefined;
  return { page: "source", source: sourceSummary(stored.entry), revision: stored.revision, history: rows };
}
