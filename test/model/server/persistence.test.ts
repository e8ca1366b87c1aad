import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {describe, it} from "node:test";
import {defaultConfig} from "../../../src/host/config.js";
import {LocalResponsesHost} from "../../../src/host/LocalResponsesHost.js";
import {models} from "../../helpers/paths.js";
import {readSse, startTestServer, type TestServer} from "../../helpers/testServer.js";

function tempDir(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), "lr-persist-"));
}

/** The real host (think model: reasoning items) on a durable data folder. */
function durableServer(dataDir: string): Promise<TestServer> {
    return startTestServer({model: models.think, storage: {kind: "durable", dataDir}});
}

/** Twelve messages of about sixty tokens and a question: enough for compaction to summarize some of them. */
const longHistory = [
    ...Array.from({length: 12}, (_, index) => ({
        role: index % 2 === 0 ? "user" : "assistant",
        content: `Message ${index}: the little dog ran to the park and played with a red ball under the big green tree all day long.`
    })),
    {role: "user", content: "What happened next?"}
];

async function countTokens(server: TestServer, input: unknown[]): Promise<number> {
    const res = await server.fetch("/v1/responses/input_tokens", {method: "POST", json: {model: "m", input}});
    assert.equal(res.status, 200);
    return (await res.json()).input_tokens;
}

async function waitFinished(server: TestServer, id: string): Promise<any> {
    for (;;) {
        const polled = await server.client.responses.retrieve(id);
        if (polled.status !== "queued" && polled.status !== "in_progress")
            return polled;
        await new Promise((resolve) => setTimeout(resolve, 50));
    }
}

describe("durable store across a server restart (real host, engine and HTTP)", () => {
    it("finds stored responses, input items, a chain, conversations, finished jobs and their streams; sealed items "
        + "still verify", async () => {
        const dataDir = tempDir();
        const first = await durableServer(dataDir);
        const input = [{role: "user" as const, content: "Tell me a story."}];
        const r1 = await first.client.responses.create({
            model: "m", input, include: ["reasoning.encrypted_content"], max_output_tokens: 30, reasoning: {effort: "low"}, temperature: 0
        });
        const r2 = await first.client.responses.create({model: "m", input: "And then?", previous_response_id: r1.id, max_output_tokens: 8});
        const r2Items = await first.client.responses.inputItems.list(r2.id);
        const conversation = await first.client.conversations.create({items: [{type: "message", role: "user", content: "Hello there."}]});
        await first.client.responses.create({model: "m", input: "Go on.", conversation: conversation.id, max_output_tokens: 6});
        const conversationItems = await first.client.conversations.items.list(conversation.id, {order: "asc"});
        const background = await first.client.responses.create({
            model: "m", input: "Once upon a time", background: true, max_output_tokens: 12
        });
        const finishedJob = await waitFinished(first, background.id);
        const jobEvents = await readSse(await first.fetch(`/v1/responses/${background.id}?stream=true&starting_after=1`));
        const compacted: any = await first.client.responses.compact({model: "m", input: longHistory, max_output_tokens: 24} as any);
        const reasoning = r1.output.find((item) => item.type === "reasoning") as any;
        assert.match(reasoning.encrypted_content, /^lr1\./);
        const replayed = {type: "reasoning", id: reasoning.id, summary: [], content: null, encrypted_content: reasoning.encrypted_content};
        const message = r1.output.find((item) => item.type === "message");
        // The wrapper renders a thought only within the turn still going (a tool call after it): there a token it
        // cannot verify is skipped and the prompt is shorter.
        const toolTurn = (thought: unknown) => [
            ...input, thought, {type: "function_call", call_id: "c1", name: "f", arguments: "{}"},
            {type: "function_call_output", call_id: "c1", output: "ok"}
        ];
        const withThought = await countTokens(first, toolTurn(replayed));
        assert.ok(
            withThought > await countTokens(first,
                toolTurn({...replayed, encrypted_content: `${reasoning.encrypted_content.slice(0, -2)}AA`}))
        );
        await first.close();

        const second = await durableServer(dataDir);
        try {
            assert.deepEqual(await second.client.responses.retrieve(r1.id), r1);
            assert.deepEqual(await second.client.responses.retrieve(r2.id), r2);
            assert.deepEqual((await second.client.responses.inputItems.list(r2.id)).data, r2Items.data);
            const r3 = await second.client.responses.create({
                model: "m", input: "Finish it.", previous_response_id: r2.id, max_output_tokens: 6
            });
            const r3Items = (await second.client.responses.inputItems.list(r3.id, {order: "asc"})).data;
            assert.ok(r3Items.some((item: any) => item.id === message!.id), "the chain continues with r1's answer in its history");
            assert.deepEqual((await second.client.conversations.items.list(conversation.id, {order: "asc"})).data, conversationItems.data);
            await second.client.responses.create({model: "m", input: "And?", conversation: conversation.id, max_output_tokens: 4});
            assert.ok((await second.client.conversations.items.list(conversation.id)).data.length > conversationItems.data.length);
            assert.deepEqual(await second.client.responses.retrieve(background.id), finishedJob);
            assert.deepEqual(await readSse(await second.fetch(`/v1/responses/${background.id}?stream=true&starting_after=1`)), jobEvents);
            // Sealed before the restart, verified after it: the token renders the thought, the compaction item replays.
            assert.equal(await countTokens(second, toolTurn(replayed)), withThought);
            const replay = await second.fetch("/v1/responses", {
                method: "POST",
                json: {model: "m", input: [...compacted.output, {role: "user", content: "Tell me more."}], max_output_tokens: 4}
            });
            assert.equal(replay.status, 200, await replay.clone().text());

            // Delete reaches the disk: gone after another restart.
            await second.client.responses.delete(r1.id);
        } finally {
            await second.close();
        }

        const third = await durableServer(dataDir);
        try {
            assert.equal((await third.fetch(`/v1/responses/${r1.id}`)).status, 404);
            assert.equal((await third.fetch(`/v1/responses/${r2.id}`)).status, 200);
            assert.ok(third.host.store.clear() >= 2);
        } finally {
            await third.close();
        }
        const storeFiles = path.join(dataDir, "store");
        assert.equal(fs.readdirSync(storeFiles).some((name) => fs.readFileSync(path.join(storeFiles, name)).includes(r2.id)), false,
            "a clear leaves nothing of the cleared responses in the database files");
        const fourth = await durableServer(dataDir);
        try {
            assert.equal((await fourth.fetch(`/v1/responses/${r2.id}`)).status, 404, "clear reached the disk");
        } finally {
            await fourth.close();
        }

        // The control: another folder has other secrets, so the same sealed items do not verify there.
        const stranger = await durableServer(tempDir());
        try {
            assert.ok(await countTokens(stranger, toolTurn(replayed)) < withThought);
            const replay = await stranger.fetch("/v1/responses", {
                method: "POST",
                json: {model: "m", input: [...compacted.output, {role: "user", content: "Tell me more."}], max_output_tokens: 4}
            });
            assert.equal(replay.status, 400);
        } finally {
            await stranger.close();
        }
    });

    it("keeps the sealing secrets in 0600 files of the data folder; a secret given by flag wins", async () => {
        const dataDir = tempDir();
        const server = await startTestServer({storage: {kind: "durable", dataDir}, reasoningSecret: "given"});
        await server.close();
        assert.equal(fs.statSync(path.join(dataDir, "compaction-secret")).mode & 0o777, 0o600);
        assert.equal(fs.existsSync(path.join(dataDir, "reasoning-secret")), false, "the configured secret is used, none is made");
    });

    it("a second server on the same data folder refuses to start, naming the folder", async () => {
        const dataDir = tempDir();
        const first = await startTestServer({storage: {kind: "durable", dataDir}});
        try {
            const second = new LocalResponsesHost({...defaultConfig(), threads: 1, storage: {kind: "durable", dataDir}});
            await assert.rejects(second.start(), (error: Error) => error.message.includes(`data folder ${dataDir} is in use`));
            assert.equal(second.listening, false);
            await second.dispose();
        } finally {
            await first.close();
        }
    });
});
