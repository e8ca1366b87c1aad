import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import {FuzzSession, type FuzzFailure, type FuzzReport} from "../../fuzz/FuzzSession.js";

/**
 * Property-based fuzzing of every endpoint and the WebSocket transport against the real server (stories260K,
 * one thread): generated bodies shaped after the real requests with one mutation at a time, raw junk, odd
 * headers, odd paths, requests Node's parser refuses, WebSocket sessions. Seeded, so a failure replays with
 * `npm run fuzz -- --seed 20261201 --cases 2160 --batch-size 6`; bounded to about a minute.
 */
const seed = 20261201;
const batchSize = 6;
const batches = 360;

/** Which property a problem breaks (see verdicts.ts and FuzzSession.ts for where each is checked). */
const properties: Record<string, (problem: string) => boolean> = {
    "the server stays alive": (problem) => problem.startsWith("server not answering"),
    "stored objects read back byte-identical": (problem) => problem.startsWith("stored object changed"),
    "no other key's object is reachable": (problem) => problem.includes("another key's object"),
    "a 4xx where one is due (non-loopback Host, out-of-range numbers)": (problem) => problem.includes("where a 4xx was due"),
    "no 5xx (a documented 503 under load aside)": (problem) => /(^|: |event )5\d\d\b|server_error/.test(problem),
    "WebSocket upgrade requests get an answer in OpenAI's shape": (problem) => problem.startsWith("WebSocket upgrade"),
    "every error is a 4xx in OpenAI's shape": (problem) => problem.includes("without OpenAI's error shape"),
    "every request is answered": () => true
};

/**
 * Properties that still fail on a bug outside the fuzz test's reach (reported, fixed by the owner of the code):
 * they run and report, and do not fail the suite until the fix lands. Remove an entry once its fix is in.
 */
/** Properties known to fail, with the reason (a `todo` until their fix lands): none now. */
const pendingFixes: Record<string, string> = {};

function propertyOf(problem: string): string {
    return Object.entries(properties).find(([, matches]) => matches(problem))![0];
}

describe("fuzz: every endpoint and the WebSocket transport", () => {
    let session: FuzzSession;
    let report: FuzzReport;
    before(async () => {
        session = await FuzzSession.start();
        report = await session.run({seed, batchSize, batches, timeLimitMs: 75_000});
    });
    after(async () => {
        await session?.close();
    });

    it("ran enough cases of every kind, and most valid-looking requests went through", () => {
        assert.ok(report.cases >= 600, `only ${report.cases} cases ran`);
        for (const kind of ["http", "raw", "ws"])
            assert.ok((report.byKind[kind] ?? 0) > 20, `too few ${kind} cases: ${JSON.stringify(report.byKind)}`);
        assert.ok((report.outcomes["2xx"] ?? 0) > report.cases / 10, `too few successful answers: ${JSON.stringify(report.outcomes)}`);
        assert.ok((report.outcomes["ws response.completed"] ?? 0) + (report.outcomes["ws response.incomplete"] ?? 0) > 5,
            `too few WebSocket turns generated: ${JSON.stringify(report.outcomes)}`);
    });

    for (const property of Object.keys(properties))
        it(property, {todo: pendingFixes[property]}, () => {
            const broken = report.failures.filter((failure) => propertyOf(failure.problem) === property);
            assert.deepEqual(broken.map(summarize), [], `seed ${seed}, ${report.cases} cases`);
        });
});

function summarize(failure: FuzzFailure): string {
    return `${failure.problem} (${failure.count}×), e.g. ${failure.example.slice(0, 300)}`;
}
