import { storageBenchmarks } from './storage.js';

/** `npm run bench`: every benchmark, each beside the baseline it measures in the same run. */
async function main(): Promise<void> {
  process.stdout.write(`svcdb benchmarks on Node ${process.version}\n`);
  await storageBenchmarks();
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
