// The CI run's closing lines, read from vitest's JSON reports. CI keeps only the end of its log, so everything that
// explains a red run must be printed last: the counts of both suite runs, then each failed test with the start of its
// failure. Two commands:
//   node scripts/ci-report.mjs suite <vitest.json> <state-file> [<run log>]
//                                      one run's line ("node24: N passed, …"), kept in state with the run's failures
//   node scripts/ci-report.mjs total <state-file>
//                                      both runs added up, then every failure of both
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

// Enough of a failure to recognise it (the assertion and our frames), not a whole stack per test; the test runner's
// and the libraries' frames say nothing about which of our lines failed.
const FAILURE_CHARS = 1200;
const ANSI = /\u001b\[[0-9;]*m/g;
const FOREIGN_FRAME = /^\s+at .*(node_modules|<anonymous>|node:internal)/;

function describeFailure(why) {
  const lines = why.replace(ANSI, '').split('\n');
  const text = lines.filter((line) => !FOREIGN_FRAME.test(line)).join('\n');
  return text.length > FAILURE_CHARS ? `${text.slice(0, FAILURE_CHARS)}…` : text;
}

function suite(reportPath, statePath, logPath) {
  const node = `node${process.versions.node.split('.')[0]}`;
  if (!existsSync(reportPath)) {
    // vitest itself ended (a crash, a kill) before it wrote its report: say so instead of counting nothing.
    const why = 'the test runner wrote no report: it ended before the run did (see the log above)';
    appendFileSync(
      statePath,
      JSON.stringify({ counts: [0, 0, 0], failures: [{ node, test: '(the whole run)', why }] }) + '\n',
    );
    console.log(`${node}: no report`);
    return;
  }
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  const counts = [report.numPassedTests, report.numFailedTests, report.numPendingTests + report.numTodoTests];
  const failures = [];
  for (const file of report.testResults ?? []) {
    const name = relative(process.cwd(), file.name);
    const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failed)
      failures.push({ node, test: `${name} > ${test.fullName}`, why: test.failureMessages?.join('\n') ?? '' });
    // A file that failed before or around its tests (an import, a hook) has a message and may have no failed test.
    if (file.status === 'failed' && failed.length === 0) failures.push({ node, test: name, why: file.message ?? '' });
  }
  // A run can fail with every test passed: an error thrown outside any test (an unhandled rejection, a worker that
  // died). vitest prints it in its log, and its JSON report does not show it (not even as `success: false`).
  const unhandled = unhandledErrors(logPath);
  if (unhandled) failures.push({ node, test: '(outside any test)', why: unhandled });
  appendFileSync(statePath, JSON.stringify({ counts, failures }) + '\n');
  console.log(`${node}: ${counts[0]} passed, ${counts[1]} failed, ${counts[2]} skipped`);
}

/** The "Unhandled Errors" block vitest prints before its summary, if the run's log has one. */
function unhandledErrors(logPath) {
  if (!logPath || !existsSync(logPath)) return undefined;
  const lines = readFileSync(logPath, 'utf8').replace(ANSI, '').split('\n');
  const start = lines.findIndex((line) => / Unhandled Errors /.test(line));
  return start < 0 ? undefined : lines.slice(start, start + 40).join('\n');
}

function total(statePath) {
  const runs = existsSync(statePath)
    ? readFileSync(statePath, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
  const sum = runs.map((run) => run.counts).reduce((a, b) => a.map((x, i) => x + b[i]), [0, 0, 0]);
  console.log(`${sum[0]} passed, ${sum[1]} failed, ${sum[2]} skipped`);
  for (const { node, test, why } of runs.flatMap((run) => run.failures)) {
    console.log(`\nfailed on ${node}: ${test}\n${describeFailure(why)}`);
  }
}

const [command, ...args] = process.argv.slice(2);
if (command === 'suite' && (args.length === 2 || args.length === 3)) suite(args[0], args[1], args[2]);
else if (command === 'total' && args.length === 1) total(args[0]);
else {
  console.error('usage: ci-report.mjs suite <vitest.json> <state-file> [<run log>] | total <state-file>');
  process.exit(2);
}
