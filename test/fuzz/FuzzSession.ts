import fc from "fast-check";
import {defaultConfig} from "../../src/host/config.js";
import {startTestServer, type TestServer} from "../helpers/testServer.js";
import type {IdPool} from "./bodyArbitraries.js";
import {fuzzCase, placeholderIds, type FuzzCase} from "./caseArbitraries.js";
import {runCase, type FuzzTarget} from "./caseRunner.js";
import {LiveIds} from "./LiveIds.js";
import {clip} from "./verdicts.js";

export type FuzzRunOptions = {
    seed: number,
    /** Batches of `batchSize` cases, run concurrently, then a health request. */
    batches: number,
    batchSize: number,
    /** Stops early (not a failure) once this much time has gone. */
    timeLimitMs?: number,
    onProgress?: (report: FuzzReport) => void
};

export type FuzzFailure = {problem: string, count: number, batch: number, example: string};

export type FuzzReport = {
    seed: number, cases: number, batches: number, byKind: Record<string, number>,
    /** Answers by status class and WebSocket outcome. */
    outcomes: Record<string, number>,
    failures: FuzzFailure[], elapsedMs: number
};

const fuzzKey = "sk-fuzz";
const protectedKey = "sk-fuzz-protected";

/**
 * A real server (stories260K, one thread) under fuzzing: objects another key created before the run must read
 * back byte-identical afterwards, the server must answer a health request after each batch, and every case's
 * answers must hold the properties in verdicts.ts. Failures are grouped by what went wrong, with one example each.
 */
export class FuzzSession {
    private readonly live = new LiveIds();
    private snapshots = new Map<string, string>();
    private foreign: IdPool = {responses: [], items: [], conversations: []};

    private constructor(private readonly server: TestServer) {}

    public static async start(): Promise<FuzzSession> {
        const base = defaultConfig();
        const server = await startTestServer({
            apiKeys: [fuzzKey, protectedKey],
            // The fuzz key's own objects are evicted within its quota, so the protected key's stay put.
            store: {maxEntries: 4096, ownerMaxEntries: 256},
            conversations: {...base.conversations, ownerMaxEntries: 64}
        });
        const session = new FuzzSession(server);
        await session.createFixtures();
        return session;
    }

    public close(): Promise<void> {
        return this.server.close();
    }

    public async run(options: FuzzRunOptions): Promise<FuzzReport> {
        const started = Date.now();
        const report: FuzzReport = {seed: options.seed, cases: 0, batches: 0, byKind: {}, outcomes: {}, failures: [], elapsedMs: 0};
        const failures = new Map<string, FuzzFailure>();
        const record = (problem: string, batch: number, example: FuzzCase | string) => {
            const key = signature(problem);
            const known = failures.get(key);
            if (known != null)
                known.count++;
            else
                failures.set(key, {problem, count: 1, batch, example: typeof example === "string" ? example : describeCase(example)});
        };
        const target: FuzzTarget = {port: Number(new URL(this.server.origin).port), live: this.live, foreignIds: allIds(this.foreign),
            timeoutMs: 60_000,
            count: (outcome) => report.outcomes[outcome] = (report.outcomes[outcome] ?? 0) + 1};
        const batchArbitrary = fc.array(fuzzCase(placeholderIds(this.foreign), fuzzKey),
            {minLength: options.batchSize, maxLength: options.batchSize});
        let serverDown = false;

        await fc.assert(fc.asyncProperty(batchArbitrary, async (batch) => {
            if (serverDown)
                return;
            const index = report.batches++;
            const results = await Promise.all(batch.map((entry) => runCase(entry, target)));
            batch.forEach((entry, caseIndex) => {
                report.cases++;
                report.byKind[entry.kind] = (report.byKind[entry.kind] ?? 0) + 1;
                for (const problem of results[caseIndex]!)
                    record(problem, index, entry);
            });
            const health = await this.health();
            if (health != null) {
                record(`server not answering after a batch: ${health}`, index, batch.map(describeCase).join("\n"));
                serverDown = true;
            } else if (index % 100 === 99)
                for (const problem of await this.storedObjectProblems())
                    record(problem, index, "(read back after the batch)");
            report.failures = [...failures.values()];
            report.elapsedMs = Date.now() - started;
            if (index % 25 === 24)
                options.onProgress?.(report);
        }), {
            seed: options.seed,
            numRuns: options.batches,
            endOnFailure: true,
            ...(options.timeLimitMs == null ? {} : {interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false})
        });

        if (!serverDown)
            for (const problem of await this.storedObjectProblems())
                record(problem, report.batches, "(read back after the run)");
        report.failures = [...failures.values()];
        report.elapsedMs = Date.now() - started;
        return report;
    }

    /** Null when `GET /v1/models` answers 200 within 10 s. */
    private async health(): Promise<string | null> {
        try {
            const res = await this.server.fetch("/v1/models",
                {headers: {authorization: `Bearer ${fuzzKey}`}, signal: AbortSignal.timeout(10_000)});
            await res.arrayBuffer();
            return res.status === 200 ? null : `GET /v1/models → ${res.status}`;
        } catch (error) {
            return (error as Error).message;
        }
    }

    /** Objects of the other key, and the fuzz key's own starting set (which cases may then change). */
    private async createFixtures(): Promise<void> {
        const as = (key: string) => async (path: string, json?: unknown) => {
            const res = await this.server.fetch(path,
                {method: json === undefined ? "GET" : "POST", json, headers: {authorization: `Bearer ${key}`}});
            const body = await res.json() as any;
            if (res.status !== 200)
                throw new Error(`fixture ${path}: ${res.status} ${JSON.stringify(body)}`);
            return body;
        };
        const owners = [as(protectedKey), as(fuzzKey)] as const;
        for (const [index, call] of owners.entries()) {
            const first = await call("/v1/responses", {model: "m", input: "Once upon a time", max_output_tokens: 4});
            const second = await call("/v1/responses",
                {model: "m", input: "And then?", previous_response_id: first.id, max_output_tokens: 3, metadata: {fixture: "yes"}});
            let background = await call("/v1/responses", {model: "m", input: "In the background", background: true, max_output_tokens: 3});
            while (background.status === "queued" || background.status === "in_progress") {
                await new Promise((resolve) => setTimeout(resolve, 50));
                background = await call(`/v1/responses/${background.id}`);
            }
            const conversation = await call("/v1/conversations", {items: [{role: "user", content: "hello"}], metadata: {topic: "fixture"}});
            const inConversation = await call("/v1/responses",
                {model: "m", input: "Hi", conversation: conversation.id, max_output_tokens: 3});
            const responses = [first, second, background, inConversation];
            const items = (await call(`/v1/conversations/${conversation.id}/items`)).data;
            if (index === 1)
                for (const value of [...responses, conversation, {object: "list", data: items}])
                    this.live.observe(value);
            else
                this.foreign = {
                    responses: responses.map((response) => response.id),
                    items: [
                        ...responses.flatMap((response) => response.output.map((item: {id: string}) => item.id)),
                        ...items.map((item: {id: string}) => item.id)
                    ],
                    conversations: [conversation.id]
                };
        }
        const paths = [
            ...this.foreign.responses.flatMap((id) => [`/v1/responses/${id}`, `/v1/responses/${id}/input_items`]),
            ...this.foreign.conversations.flatMap((id) => [`/v1/conversations/${id}`, `/v1/conversations/${id}/items`])
        ];
        this.snapshots = new Map(await Promise.all(paths.map(async (path) => [path, await this.readProtected(path)] as const)));
    }

    private async readProtected(path: string): Promise<string> {
        const res = await this.server.fetch(path, {headers: {authorization: `Bearer ${protectedKey}`}});
        return `${res.status} ${await res.text()}`;
    }

    private async storedObjectProblems(): Promise<string[]> {
        const problems: string[] = [];
        for (const [path, before] of this.snapshots) {
            const now = await this.readProtected(path);
            if (now !== before)
                problems.push(`stored object changed: ${path} was ${clip(before, 120)} now ${clip(now, 120)}`);
        }
        return problems;
    }
}

function allIds(pool: IdPool): string[] {
    return [...pool.responses, ...pool.items, ...pool.conversations];
}

/** Groups failures by what went wrong, not by the ids and numbers in the message. */
function signature(problem: string): string {
    return problem.replace(/'[^']*'/g, "'…'").replace(/\b(resp|msg|fc|conv|rs|ctc|cmp)_[A-Za-z0-9]+/g, "$1_…").replace(/\d+/g, "N").slice(0,
        120);
}

/** A case as a short, reproducible description. */
export function describeCase(fuzzCase: FuzzCase): string {
    switch (fuzzCase.kind) {
        case "http": {
            const encoding = fuzzCase.encoding == null ? "" : ` encoding=${JSON.stringify(fuzzCase.encoding)}`;
            const note = fuzzCase.note == null ? "" : ` (${fuzzCase.note})`;
            const body = fuzzCase.body ?? "none";
            return clip(`${fuzzCase.method} ${fuzzCase.path} ${JSON.stringify(fuzzCase.headers)}${encoding}${note} body=${body}`,
                Number(process.env.FUZZ_CLIP ?? 600));
        }
        case "raw": return clip(`raw (${fuzzCase.note}): ${JSON.stringify(fuzzCase.request)}`, Number(process.env.FUZZ_CLIP ?? 600));
        case "ws": return clip(`WebSocket ${fuzzCase.path} ${JSON.stringify(fuzzCase.headers)} closeEarly=${fuzzCase.closeEarly} `
            + `messages=${JSON.stringify(fuzzCase.messages)}`, Number(process.env.FUZZ_CLIP ?? 600));
    }
}

export const fuzzKeys = {fuzz: fuzzKey, protected: protectedKey};
