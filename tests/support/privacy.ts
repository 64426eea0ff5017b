/**
 * The privacy-request services for an app under test, backed by a real embedded store in a
 * temporary directory that is only created when a test first submits something.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase, type Database } from "../../server/db/database";
import { migrate } from "../../server/db/migrate";
import { privacyRequestRepository, type PrivacyRequestRepository } from "../../server/db/privacy-requests";
import { createPrivacyService, type PrivacyService } from "../../server/privacy/service";
import { createCsrf, type Csrf } from "../../server/csrf";

export interface TestPrivacy {
  service: PrivacyService;
  csrf: Csrf;
  repository(): Promise<PrivacyRequestRepository>;
  close(): Promise<void>;
}

export function testPrivacy(): TestPrivacy {
  let opened: Promise<{ db: Database; dir: string; repository: PrivacyRequestRepository; service: PrivacyService }> | undefined;
  const open = () =>
    (opened ??= (async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "quote-site-test-db-"));
      const db = await openDatabase({ DATA_DIR: dir });
      await migrate(db);
      const repository = privacyRequestRepository(db);
      return { db, dir, repository, service: createPrivacyService(repository) };
    })());
  return {
    service: { submit: async (...args) => (await open()).service.submit(...args) },
    csrf: createCsrf("test-secret-test-secret-test-secret!"),
    repository: async () => (await open()).repository,
    async close() {
      if (!opened) return;
      const { db, dir } = await opened;
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
