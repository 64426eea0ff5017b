/**
 * Version 24 (issue 45): A/B experiments' records. One exposure per visitor and experiment (the
 * first: its variant, the campaign ids it came with, whether a bot), so visitors count once per
 * experiment; the experiments' visitor id (the qr_vis cookie) on the funnel events and the leads it
 * made, so form starts, leads, sales and returns reach the visitor's variant. Experiments
 * themselves are business settings (migration 17's tables), changed from the console like buyers.
 */
import type { Migration } from "./migration";

export const experiments: Migration = {
  version: 24,
  name: "experiments",
  statements: [
    `CREATE TABLE experiment_exposures (
       experiment text NOT NULL,
       visitor_id text NOT NULL,
       variant text NOT NULL,
       first_at timestamptz NOT NULL,
       sid text,
       tid text,
       bot boolean NOT NULL DEFAULT false,
       PRIMARY KEY (experiment, visitor_id)
     )`,
    `CREATE INDEX experiment_exposures_visitor ON experiment_exposures (visitor_id)`,
    `ALTER TABLE analytics_events ADD COLUMN visitor_id text`,
    `CREATE INDEX analytics_events_visitor ON analytics_events (visitor_id) WHERE visitor_id IS NOT NULL`,
    `ALTER TABLE leads ADD COLUMN visitor_id text`,
    `CREATE INDEX leads_visitor ON leads (visitor_id) WHERE visitor_id IS NOT NULL`,
  ],
};
