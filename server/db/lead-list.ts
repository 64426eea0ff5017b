/**
 * The console's list of leads (GET /leads and /leads.csv): recent leads, newest first, filtered,
 * a page at a time. SQL only; which filters apply and who may search by contact is decided in
 * server/admin/lead-list-query.ts and passed in.
 *
 * A lead's status, from the stored rows (docs/operations-console.md repeats it):
 *   test     — ops marked it (leads.test, a test link) or it came with the test phone number
 *              (`testPhone`, passed in: server/auction/sandbox.ts decides it): never billed, so never
 *              "sold" whatever its deliveries;
 *   sold     — a buyer delivery that was a sale (deliveries.sale) was accepted and not returned;
 *   returned — a buyer accepted it as a sale and returned it, and no buyer keeps it;
 *   unsold   — anything else: not offered, refused, still pending, a duplicate, sent not for sale.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { Database } from "./database";
import type { LeadStatus } from "../../shared/admin-views";

export interface LeadListFilter {
  /** Received in [since, until); either may be absent (a contact search covers every lead kept). */
  since?: Date | undefined;
  until?: Date | undefined;
  sid?: string | undefined;
  state?: string | undefined;
  status?: LeadStatus | undefined;
  /** Leads this buyer bought (accepted as a sale, returned since or not). */
  buyer?: string | undefined;
  /** Stored forms: E.164, lower-cased email. */
  phone?: string | undefined;
  email?: string | undefined;
}

export interface LeadPurchase {
  buyer: string;
  price: number | null;
  returned: boolean;
}

export interface LeadListRow {
  reference: string;
  receivedAt: Date;
  sid: string | null;
  state: string;
  status: LeadStatus;
  phone: string;
  email: string;
  /** The buyers that bought it, in the order they did. */
  purchases: LeadPurchase[];
}

const saleIn = (status: "accepted" | "returned") =>
  sql<boolean>`EXISTS (SELECT 1 FROM deliveries d WHERE d.lead_id = leads.id AND d.kind = 'buyer' AND d.sale AND d.status = ${status})`;
/** What the domain decides for the statuses: the phone number that makes a lead a test. */
export interface LeadStatusRules {
  testPhone: string;
}

const statusOf = ({ testPhone }: LeadStatusRules) =>
  sql<LeadStatus>`CASE WHEN (leads.test OR leads.phone = ${testPhone}) THEN 'test' WHEN ${saleIn("accepted")} THEN 'sold' WHEN ${saleIn("returned")} THEN 'returned' ELSE 'unsold' END`;

function filtered(db: Database, rules: LeadStatusRules, filter: LeadListFilter) {
  const { since, until, sid, state, status, buyer, phone, email } = filter;
  return db.builder
    .selectFrom("leads")
    .$if(since !== undefined, (query) => query.where("leads.receivedAt", ">=", since!))
    .$if(until !== undefined, (query) => query.where("leads.receivedAt", "<", until!))
    .$if(sid !== undefined, (query) => query.where("leads.sid", "=", sid!))
    .$if(state !== undefined, (query) => query.where("leads.state", "=", state!))
    .$if(phone !== undefined, (query) => query.where("leads.phone", "=", phone!))
    .$if(email !== undefined, (query) => query.where("leads.email", "=", email!))
    .$if(status !== undefined, (query) => query.where((eb) => eb(statusOf(rules), "=", status!)))
    .$if(buyer !== undefined, (query) =>
      query.where(
        sql<SqlBool>`EXISTS (SELECT 1 FROM deliveries d WHERE d.lead_id = leads.id AND d.kind = 'buyer' AND d.sale AND d.status IN ('accepted', 'returned') AND d.target = ${buyer!})`,
      ),
    );
}

/** A cursor that names no stored lead (purged, or made up). */
export class UnknownCursorError extends Error {}

const money = (value: string | number | null) => (value === null ? null : Number(value));

export function leadListRepository(db: Database, rules: LeadStatusRules) {
  return {
    /**
     * One page, newest first: received_at, then id, both descending, so leads received in the
     * same instant keep one order. `after` is the reference of the previous page's last lead
     * (keyset pagination: new leads arriving meanwhile shift nothing). Asks for one row more than
     * `limit` to know whether an older page exists.
     */
    async page(filter: LeadListFilter, limit: number, after?: string): Promise<{ rows: LeadListRow[]; more: boolean }> {
      let query = filtered(db, rules, filter);
      if (after !== undefined) {
        const cursor = await db.builder.selectFrom("leads").select(["id", "receivedAt"]).where("reference", "=", after).executeTakeFirst();
        if (!cursor) throw new UnknownCursorError(`No lead ${after} to continue from.`);
        // The plain bound lets the received_at index narrow the scan; the row comparison breaks ties.
        const older: Expression<SqlBool> = sql<SqlBool>`(leads.received_at, leads.id) < (${cursor.receivedAt}::timestamptz, ${String(cursor.id)}::bigint)`;
        query = query.where("leads.receivedAt", "<=", cursor.receivedAt).where(older);
      }
      const found = await query
        .select(["leads.id", "leads.reference", "leads.receivedAt", "leads.sid", "leads.state", "leads.phone", "leads.email", statusOf(rules).as("status")])
        .orderBy("leads.receivedAt", "desc")
        .orderBy("leads.id", "desc")
        .limit(limit + 1)
        .execute();
      const rows = found.slice(0, limit);
      const purchases = new Map<string, LeadPurchase[]>();
      if (rows.length > 0) {
        const sales = await db.builder
          .selectFrom("deliveries")
          .select(["leadId", "target", "price", "status"])
          .where(
            "leadId",
            "in",
            rows.map((row) => row.id),
          )
          .where("kind", "=", "buyer")
          .where("sale", "=", true)
          .where("status", "in", ["accepted", "returned"])
          .orderBy("id")
          .execute();
        for (const sale of sales) {
          const key = String(sale.leadId);
          purchases.set(key, [...(purchases.get(key) ?? []), { buyer: sale.target, price: money(sale.price), returned: sale.status === "returned" }]);
        }
      }
      return {
        rows: rows.map(({ id, ...row }) => ({ ...row, purchases: purchases.get(String(id)) ?? [] })),
        more: found.length > limit,
      };
    },

    /** How many leads match (for the page's heading and the CSV's size limit). */
    async count(filter: LeadListFilter): Promise<number> {
      const row = await filtered(db, rules, filter).select((eb) => eb.fn.countAll<string | number>().as("count")).executeTakeFirstOrThrow();
      return Number(row.count);
    },
  };
}

export type LeadListRepository = ReturnType<typeof leadListRepository>;
