/**
 * Reading a consent certificate: the consent record (lead_consents, kept 5 years) with the exact
 * disclosure it points at, for a buyer the lead was delivered to (deliveries, kind 'buyer').
 */
import type { Builder } from "../db/database";

/** Everything the certificate page shows, unmasked (the page masks the contact details). */
export interface ConsentCertificate {
  certificateId: string;
  leadReference: string;
  disclosureVersion: number;
  disclosureSha256: string;
  disclosureText: string;
  /** The partners the text names, and the buyers they are. */
  partnerNames: string[];
  buyerIds: string[];
  checkboxChecked: boolean;
  formOpenedAt: Date | null;
  consentedAt: Date;
  formUrl: string;
  pageUrl: string;
  ip: string;
  userAgent: string;
  termsVersion: string | null;
  privacyVersion: string | null;
  firstName: string | null;
  lastName: string | null;
  phone: string;
  email: string;
  zip: string | null;
  /** When the person revoked this consent, and by which request; null while it stands. */
  revokedAt: Date | null;
  revocationReference: string | null;
  /** TrustedForm's certificate URL and Jornaya's LeadiD token as the form sent them (issue 44); null when none was sent. */
  trustedformCertUrl?: string | null;
  leadidToken?: string | null;
}

/** The certificate `certificateId`, if its lead was delivered to `buyerId`; otherwise nothing. */
export async function findCertificateForBuyer(db: Builder, certificateId: string, buyerId: string): Promise<ConsentCertificate | undefined> {
  const row = await db
    .selectFrom("leadConsents as c")
    .innerJoin("consentDisclosures as d", "d.version", "c.disclosureVersion")
    .select([
      "c.leadReference",
      "c.disclosureVersion",
      "c.disclosureSha256",
      "d.text as disclosureText",
      "d.partnerNames",
      "d.buyerIds",
      "c.checkboxChecked",
      "c.formOpenedAt",
      "c.consentedAt",
      "c.formUrl",
      "c.pageUrl",
      "c.ip",
      "c.userAgent",
      "c.termsVersion",
      "c.privacyVersion",
      "c.firstName",
      "c.lastName",
      "c.phone",
      "c.email",
      "c.zip",
      "c.revokedAt",
      "c.revocationReference",
      "c.trustedformCertUrl",
      "c.leadidToken",
    ])
    .where("c.certificateId", "=", certificateId)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom("deliveries as r")
          .select("r.id")
          .where("r.kind", "=", "buyer")
          .where("r.target", "=", buyerId)
          .whereRef("r.leadReference", "=", "c.leadReference"),
      ),
    )
    .executeTakeFirst();
  if (!row) return undefined;
  return { ...row, certificateId, disclosureVersion: Number(row.disclosureVersion) };
}

/** The certificate id of a lead's consent record (for the link a delivery carries); undefined before migration 4. */
export async function certificateIdOf(db: Builder, leadReference: string): Promise<string | undefined> {
  const row = await db.selectFrom("leadConsents").select("certificateId").where("leadReference", "=", leadReference).executeTakeFirst();
  return row?.certificateId ?? undefined;
}
