/**
 * The leads list (GET /leads without a reference) and its CSV (GET /leads.csv): the view the page
 * renders, with contact details masked for ops and absent for analysts, and the export file with
 * `npm run leads -- export`'s columns (server/leads/export-columns.ts), for ops only.
 */
import type { Database } from "../db/database";
import { leadListRepository, type LeadListFilter, type LeadListRow } from "../db/lead-list";
import { leadRepository } from "../db/leads";
import { leadsCsv, type Column } from "../leads/export-columns";
import type { AdminRole, LeadListQuery, LeadListRowView, LeadListView } from "../../shared/admin-views";
import { adminPaths } from "../../shared/admin-views";
import { leadListSearch } from "./lead-list-query";
import { TEST_LEAD_PHONE } from "../auction/sandbox";
import { maskEmail, maskPhone } from "./contact-mask";

export { maskEmail, maskPhone };

/** A lead with the sandbox's test number is a test (server/auction/sandbox.ts), whatever its deliveries. */
const STATUS_RULES = { testPhone: TEST_LEAD_PHONE };

/** A page of 50: a phone screen scrolls through it, and the query stays one index range scan. */
export const LEAD_PAGE_SIZE = 50;
/** Beyond this the console refuses a CSV (held in memory): `npm run leads -- export` has no limit. */
export const LEAD_CSV_MAX_ROWS = 10_000;

/** What the buyers that kept the lead paid (returned sales are not revenue); null when none kept it. */
function keptPrice(purchases: LeadListRow["purchases"]): number | null {
  const kept = purchases.filter((purchase) => !purchase.returned && purchase.price !== null);
  return kept.length === 0 ? null : Math.round(kept.reduce((sum, purchase) => sum + purchase.price!, 0) * 100) / 100;
}

function rowView(row: LeadListRow, role: AdminRole): LeadListRowView {
  return {
    reference: row.reference,
    receivedAt: row.receivedAt.toISOString(),
    sid: row.sid,
    state: row.state,
    status: row.status,
    purchases: row.purchases,
    price: keptPrice(row.purchases),
    // Analysts never see contact details, not even masked (docs/operations-console.md).
    ...(role === "ops" ? { contact: { phone: maskPhone(row.phone), email: maskEmail(row.email) } } : {}),
  };
}

export async function leadListView(
  db: Database,
  parsed: { query: LeadListQuery; filter: LeadListFilter; after?: string | undefined },
  options: { role: AdminRole; buyers: readonly string[] },
): Promise<LeadListView> {
  const repository = leadListRepository(db, STATUS_RULES);
  const [page, total] = await Promise.all([repository.page(parsed.filter, LEAD_PAGE_SIZE, parsed.after), repository.count(parsed.filter)]);
  const last = page.rows.at(-1);
  const ops = options.role === "ops";
  return {
    query: parsed.query,
    rows: page.rows.map((row) => rowView(row, options.role)),
    total,
    ...(page.more && last ? { older: leadListSearch(parsed.query, last.reference) } : {}),
    paged: parsed.after !== undefined,
    buyers: [...options.buyers],
    ...(ops ? { csv: `${adminPaths.leadsCsv}?${leadListSearch(parsed.query)}` } : {}),
    contacts: ops,
  };
}

interface ListFacts {
  status: string;
  purchases: LeadListRow["purchases"];
}

/** After the export's columns: what the list shows and the export lacks. */
const LIST_COLUMNS: Column<ListFacts>[] = [
  ["status", (row) => row.status],
  ["bought_by", (row) => row.purchases.filter((purchase) => !purchase.returned).map((purchase) => purchase.buyer).join(" ")],
  ["returned_by", (row) => row.purchases.filter((purchase) => purchase.returned).map((purchase) => purchase.buyer).join(" ")],
  ["price", (row) => keptPrice(row.purchases)?.toFixed(2) ?? ""],
];

export type LeadCsv = { kind: "csv"; fileName: string; body: string; rows: number } | { kind: "too_many"; total: number };

/** The filtered list as the export's CSV, newest first; too many rows is refused, not cut short. */
export async function leadListCsv(db: Database, parsed: { query: LeadListQuery; filter: LeadListFilter }): Promise<LeadCsv> {
  const list = leadListRepository(db, STATUS_RULES);
  const total = await list.count(parsed.filter);
  if (total > LEAD_CSV_MAX_ROWS) return { kind: "too_many", total };
  const { rows } = await list.page(parsed.filter, LEAD_CSV_MAX_ROWS);
  const records = await leadRepository(db).findByReferences(rows.map((row) => row.reference));
  const full = rows.flatMap((row) => {
    const record = records.get(row.reference);
    return record ? [{ ...record, extra: { status: row.status, purchases: row.purchases } }] : [];
  });
  const fileName = parsed.query.since && parsed.query.until ? `leads-${parsed.query.since}-to-${parsed.query.until}.csv` : "leads-found.csv";
  return { kind: "csv", fileName, body: leadsCsv(full, LIST_COLUMNS), rows: full.length };
}
