/**
 * `node --import ./tools/cpu-profile.mjs …`: a V8 CPU profile of the whole process, written to
 * CPU_PROFILE_DIR as <script>-<pid>.cpuprofile when it exits (open it in Chrome's DevTools). Node 20
 * refuses --cpu-prof in NODE_OPTIONS, which is how the auction bench reaches the server and the
 * background worker it forks (`npm run bench:auction -- --profile DIR`); an --import is allowed.
 */
import { Session } from "node:inspector";
import { writeFileSync } from "node:fs";
import path from "node:path";

const directory = process.env.CPU_PROFILE_DIR;
if (directory) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 1000 });
  session.post("Profiler.start");
  process.on("exit", () => {
    // A session on the process's own thread answers synchronously, so the profile is written before it ends.
    session.post("Profiler.stop", (error, result) => {
      if (error || !result) return;
      const name = path.basename(process.argv[1] ?? "node").replace(/\.[cm]?js$/, "");
      writeFileSync(path.join(directory, `${name}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
