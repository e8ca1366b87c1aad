import assert from "node:assert/strict";
import {spawn} from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {createInterface} from "node:readline";

export interface RemotePost {
    /** Sends the body and resolves with the answer's status, parsed JSON and the time it took in the client. */
    post(): Promise<{status: number, json: any, ms: number}>;
}

/**
 * A client in another process, started before the measurement, that POSTs a body file when told to: building,
 * serialising and sending megabytes, and spawning a process, are not the server's time, and their garbage is not
 * collected on the server's event loop (an in-process test server shares the test's loop).
 */
export async function clientInAnotherProcess(url: string, headers: Record<string, string>, body: string): Promise<RemotePost> {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), "remote-client-"));
    const file = path.join(folder, "body.json");
    await fs.writeFile(file, body);
    const script = `const body = require("node:fs").readFileSync(${JSON.stringify(file)});
        process.stdin.once("data", () => {
            const started = performance.now();
            const headers = ${JSON.stringify({"content-type": "application/json", ...headers})};
            fetch(${JSON.stringify(url)}, {method: "POST", body, headers})
                .then(async (response) => {
                    const json = await response.json();
                    console.log(JSON.stringify({status: response.status, json, ms: performance.now() - started}));
                    process.exit(0);
                });
        });
        console.log("ready");`;
    const child = spawn(process.execPath, ["-e", script], {stdio: ["pipe", "pipe", "inherit"]});
    const lines = createInterface({input: child.stdout!});
    const next = () => new Promise<string>((resolve) => lines.once("line", resolve));
    assert.equal(await next(), "ready");
    return {
        post: async () => {
            const answer = next();
            child.stdin!.write("go\n");
            const result = JSON.parse(await answer);
            await fs.rm(folder, {recursive: true, force: true});
            return result;
        }
    };
}
