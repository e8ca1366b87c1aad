/**
 * npm run fuzz — the fuzz test's properties over many more cases (10,000 by default), against a real server:
 *   npm run fuzz -- --cases 10000 --seed 42     (or FUZZ_CASES / FUZZ_SEED)
 * Prints progress, then cases run, failures grouped by what went wrong (one example each) and the seed to
 * replay them with. Exits 1 when a property failed.
 */
import {parseArgs} from "node:util";
import {FuzzSession, type FuzzReport} from "./FuzzSession.js";

const {values} = parseArgs({options: {cases: {type: "string"}, seed: {type: "string"}, "batch-size": {type: "string"}}});
const cases = Number(values.cases ?? process.env.FUZZ_CASES ?? 10_000);
const seed = Number(values.seed ?? process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647);
const batchSize = Number(values["batch-size"] ?? 6);
if (!Number.isInteger(cases) || cases < 1 || !Number.isInteger(seed) || !Number.isInteger(batchSize) || batchSize < 1) {
    process.stderr.write("usage: npm run fuzz -- [--cases N] [--seed S] [--batch-size B]\n");
    process.exit(2);
}

const counts = (record: Record<string, number>) => Object.entries(record).sort().map(([key, count]) => `${key} ${count}`).join(", ");
const summary = (report: FuzzReport) => `${report.cases} cases (${counts(report.byKind)}; answers: ${counts(report.outcomes)}) `
    + `in ${(report.elapsedMs / 1000).toFixed(0)} s, ${report.failures.length} distinct failures`;

async function main(): Promise<number> {
    process.stdout.write(`fuzz: seed ${seed}, ${cases} cases in batches of ${batchSize}\n`);
    const session = await FuzzSession.start();
    let report: FuzzReport;
    try {
        report = await session.run({
            seed, batchSize, batches: Math.ceil(cases / batchSize),
            onProgress: (progress) => process.stdout.write(`  ${summary(progress)}\n`)
        });
    } finally {
        await session.close();
    }
    process.stdout.write(
        `\ncases run: ${report.cases}\nfailures: ${report.failures.reduce((sum, failure) => sum + failure.count, 0)} `
            + `(${report.failures.length} distinct)\nseed: ${seed}\n`
    );
    for (const failure of report.failures)
        process.stdout.write(
            `\n- ${failure.problem}\n  ${failure.count}× (first in batch ${failure.batch}); example: ${failure.example}\n`
        );
    process.stdout.write(`\n${summary(report)}; replay: npm run fuzz -- --cases ${cases} --seed ${seed} --batch-size ${batchSize}\n`);
    return report.failures.length === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
});
