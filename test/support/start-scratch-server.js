// Starts the test run's Temporal dev server from the built dist/ and prints {cli, server} as JSON. It runs as a
// plain Node process because jest's global setup loads modules through its own CommonJS transform, which cannot
// resolve the import-only packages under execa; plain Node loads them natively. The server outlives this process.
const { resolveTemporalCli } = require('../../dist/src/service/resolve-cli');
const { startScratchDevServer } = require('../../dist/test/support/dev-server');

async function main() {
  const dir = process.argv[2];
  let cli;
  try {
    cli = await resolveTemporalCli({ onProgress: (line) => process.stderr.write(`${line}\n`) });
  } catch (error) {
    process.stderr.write(
      `Integration tests need a real Temporal dev server and none could be found or built.\n${error.message}\n`,
    );
    process.exit(1);
  }
  const server = await startScratchDevServer({ cliPath: cli.path, dir });
  // The server is this process's child: exit without waiting for it.
  process.stdout.write(JSON.stringify({ cli, server }), () => process.exit(0));
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
