import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {describe, it} from "node:test";
import type {LlamaContextSequence} from "node-llama-cpp";
import {copySequenceState} from "../../../../src/engine/llama/runtime/sequenceCopy.js";

/** A sequence whose state is a string written to and read from the file node-llama-cpp would use. */
function fakeSequence(state: string, failing: "save" | "load" | null = null) {
    const sequence = {
        state, cleared: false, files: [] as string[],
        saveStateToFile: async (file: string) => {
            if (failing === "save")
                throw new Error("disk full");
            sequence.files.push(file);
            assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700, "the state holds a prompt: owner-only folder");
            fs.writeFileSync(file, sequence.state);
        },
        loadStateFromFile: async (file: string, options: {acceptRisk: boolean}) => {
            assert.equal(options.acceptRisk, true);
            if (failing === "load")
                throw new Error("truncated");
            sequence.files.push(file);
            sequence.state = fs.readFileSync(file, "utf8");
        },
        clearHistory: async () => {
            sequence.cleared = true;
            sequence.state = "";
        }
    };
    return sequence;
}

const asSequence = (fake: ReturnType<typeof fakeSequence>) => fake as unknown as LlamaContextSequence;

describe("copySequenceState", () => {
    it("copies one sequence's state into another through a private file it removes", async () => {
        const from = fakeSequence("instructions+tools+conversation");
        const to = fakeSequence("another session");
        assert.equal(await copySequenceState(asSequence(from), asSequence(to)), true);
        assert.equal(to.state, "instructions+tools+conversation");
        assert.equal(to.files[0], from.files[0], "read from where it was written");
        assert.equal(fs.existsSync(path.dirname(from.files[0]!)), false, "the folder with the prompt's state is gone");
    });

    for (const failing of ["save", "load"] as const)
        it(`a failed ${failing} leaves the target empty and no file behind, and says so`, async () => {
            const from = fakeSequence("prefix", failing === "save" ? "save" : null);
            const to = fakeSequence("old", failing === "load" ? "load" : null);
            assert.equal(await copySequenceState(asSequence(from), asSequence(to)), false);
            assert.equal(to.cleared, true);
            for (const file of from.files)
                assert.equal(fs.existsSync(path.dirname(file)), false);
        });
});
