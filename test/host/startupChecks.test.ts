import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import {describe, it} from "node:test";
import type {ModelFit} from "../../src/engine/models/modelFit.js";
import {demoModelPath, listenProblem, memoryProblem, modelFileProblem} from "../../src/host/startupChecks.js";
import {repoRoot} from "../helpers/paths.js";

/** Each message is one line that names what to do. */
function assertOneLine(message: string | null): string {
    assert.ok(message != null);
    assert.ok(!message.includes("\n"), message);
    return message;
}

describe("start-up checks: one line that says what to do", () => {
    it("the demo model is the repository's models/stories260K.gguf, the file its README's sha256 names", () => {
        const file = demoModelPath();
        assert.equal(file, path.join(repoRoot, "models/stories260K.gguf"));
        const digest = crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
        const readme = fs.readFileSync(path.join(repoRoot, "models/README.md"), "utf8");
        assert.ok(readme.includes(`sha256 \`${digest}\``), `models/README.md does not record ${digest}`);
        assert.ok(fs.existsSync(path.join(repoRoot, "models/LICENSE-llama2c.txt")), "its licence travels with it");
        assert.equal(modelFileProblem(file), null);
    });

    it("a missing model file: its path, and --model or the demo model", () => {
        const message = assertOneLine(modelFileProblem("/nonexistent/model.gguf"));
        assert.match(message, /^model file not found: \/nonexistent\/model\.gguf \(give --model the path of a \.gguf file, or leave --model out/);
    });

    it("a folder given as the model", () => {
        assert.match(assertOneLine(modelFileProblem(os.tmpdir())), /is a folder \(give --model the path of a \.gguf file\)/);
    });

    it("a file that is not a GGUF model (a safetensors file, a text file): what GGUF is and where to get one", () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-not-gguf-"));
        const files = [["model.safetensors", Buffer.from([8, 0, 0, 0, 0, 0, 0, 0, 123])], ["bad.gguf", Buffer.from("not a model")],
            ["empty.gguf", Buffer.alloc(0)]] as const;
        for (const [name, bytes] of files) {
            const file = path.join(dir, name);
            fs.writeFileSync(file, bytes);
            assert.match(assertOneLine(modelFileProblem(file)), /is not a GGUF model \(it does not start with 'GGUF'\): give --model a \.gguf file/);
        }
        fs.rmSync(dir, {recursive: true});
    });

    it("a model too big for memory: the estimate, its parts and the machine's memory", () => {
        const gib = 1024 ** 3;
        const fit: ModelFit = {
            modelBytes: 40 * gib, parameters: 70e9, architecture: "llama", trainContextSize: 8192, contextSize: 8192, sequences: 2,
            modelRamBytes: 40 * gib, contextRamBytes: 2.5 * gib, requiredBytes: 42.5 * gib, availableBytes: 12 * gib, totalBytes: 16 * gib,
            verdict: "no"
        };
        assert.equal(assertOneLine(memoryProblem("/models/big.gguf", fit)),
            "big.gguf needs about 42.5 GB of memory (40.0 GB weights + 2.5 GB for 2 × 8192 tokens of context), this machine has 12.0 GB "
                + "available of 16.0 GB: use a smaller model or quantization, or lower --context-size / --parallel");
        assert.equal(memoryProblem("/models/big.gguf", {...fit, verdict: "tight"}), null, "tight still loads");
        assert.equal(memoryProblem("/models/big.gguf", {...fit, verdict: "fits"}), null);
    });

    it("a port in use: the port, and --port N or --port 0", async () => {
        const holder = net.createServer();
        await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
        const port = (holder.address() as net.AddressInfo).port;
        const second = net.createServer();
        const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
            second.once("error", resolve);
            second.listen(port, "127.0.0.1");
        });
        holder.close();
        assert.equal(assertOneLine(listenProblem(error, "127.0.0.1", port)),
            `port ${port} on 127.0.0.1 is already in use (another server, or another local-responses?): `
                + "pass --port N for another port, or --port 0 for any free one");
    });

    it("other listen failures keep the system's reason", () => {
        const error = Object.assign(new Error("listen EACCES: permission denied 127.0.0.1:80"), {code: "EACCES"});
        assert.match(assertOneLine(listenProblem(error, "127.0.0.1", 80)), /ports below 1024 need privileges\): pass --port N/);
        const other = Object.assign(new Error("listen EINVAL"), {code: "EINVAL"});
        assert.equal(listenProblem(other, "127.0.0.1", 1), "cannot listen on 127.0.0.1:1: listen EINVAL");
    });
});
