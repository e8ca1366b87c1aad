import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {describe, it} from "node:test";
import {serveCli, type CliServer} from "../../helpers/cliServer.js";
import {models} from "../../helpers/paths.js";

/** The headless server on a data folder: four sequences, no key. */
function serve(dataDir: string): Promise<CliServer> {
    return serveCli(["--model", models.chatml, "--no-auth", "--threads", "1", "--parallel", "4", "--data-dir", dataDir]);
}

type Reported = {id: string, response: any, input: string};

/** One client of the burst: stores responses (half of them streamed) until the server dies, noting each reported one. */
async function client(url: string, name: string, reported: Reported[]): Promise<void> {
    for (let turn = 0; ; turn++) {
        const input = `${name} turn ${turn}: tell me about the little dog.`;
        const stream = turn % 2 === 1;
        try {
            const res = await fetch(`${url}/responses`, {
                method: "POST",
                headers: {"content-type": "application/json"},
                body: JSON.stringify({model: "m", input, max_output_tokens: 6, store: true, stream})
            });
            if (!stream) {
                const body = await res.json();
                reported.push({id: body.id, response: body, input});
                continue;
            }
            const text = await res.text();
            const completed = text.split("\n\n").map((block) => block.split("\n").find((line) => line.startsWith("data: ")))
                .filter((line) => line != null).map((line) => JSON.parse(line!.slice(6)))
                .find((event) => event.type === "response.completed");
            if (completed != null)
                reported.push({id: completed.response.id, response: completed.response, input});
        } catch {
            return; // the server was killed
        }
    }
}

describe("durable store under SIGKILL (CLI process)", () => {
    it("after a kill in the middle of a burst of writes, every response reported as stored is there whole (10 rounds)", async () => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-kill-"));
        const reported: Reported[] = [];
        for (let round = 0; round < 10; round++) {
            const server = await serve(dataDir);
            const clients = Array.from({length: 4}, (_, index) => client(server.url, `r${round}c${index}`, reported));
            await new Promise((resolve) => setTimeout(resolve, 300 + round * 97 % 700));
            const exited = new Promise((resolve) => server.child.on("exit", resolve));
            server.child.kill("SIGKILL");
            await exited;
            await Promise.all(clients);
        }
        assert.ok(reported.length >= 20, `the bursts stored ${reported.length} responses`);

        const server = await serve(dataDir);
        try {
            for (const {id, response, input} of reported) {
                const res = await fetch(`${server.url}/responses/${id}`);
                assert.equal(res.status, 200, `${id} was reported as stored`);
                assert.deepEqual(await res.json(), response);
                const items = await (await fetch(`${server.url}/responses/${id}/input_items`)).json();
                assert.deepEqual(items.data.map((item: any) => item.content[0].text), [input]);
            }
            assert.doesNotMatch(server.stderr(), /cannot be used|failed/, "every restart found a usable store");
        } finally {
            const exited = new Promise((resolve) => server.child.on("exit", resolve));
            server.child.kill("SIGTERM");
            await exited;
        }
    });
});
