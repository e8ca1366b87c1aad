import assert from "node:assert/strict";
import {test} from "node:test";
import {ContextChunks} from "../../../src/vscode/completions/ContextChunks.js";
import {linesOf} from "../../../src/vscode/completions/cursorWindow.js";

const numbered = (count: number, name: string) => linesOf(Array.from({length: count}, (_, index) => `${name}${index}`).join("\n"));

test("a chunk is the lines around where the person worked, kept within the file", () => {
    const chunks = new ContextChunks({chunkLines: 4, maxChunks: 8, maxChars: 10_000});
    chunks.remember("a.ts", numbered(100, "a"), 50);
    chunks.remember("b.ts", numbered(100, "b"), 1);
    assert.deepEqual(chunks.for("c.ts", {firstLine: 0, lastLine: 10}), [
        {filename: "a.ts", text: "a48\na49\na50\na51\n"},
        {filename: "b.ts", text: "b0\nb1\nb2\nb3\n"}
    ]);
});

test("a suggestion gets no chunk of the lines its own window shows, and the others oldest first", () => {
    const chunks = new ContextChunks({chunkLines: 4, maxChunks: 8, maxChars: 10_000});
    chunks.remember("a.ts", numbered(100, "a"), 10);
    chunks.remember("a.ts", numbered(100, "a"), 80);
    chunks.remember("b.ts", numbered(10, "b"), 0);
    assert.deepEqual(chunks.for("a.ts", {firstLine: 0, lastLine: 40}).map((chunk) => chunk.text.split("\n")[0]), ["a78", "b0"]);
});

test("the same lines again change nothing; a new chunk replaces the file's one it overlaps, at the end", () => {
    const chunks = new ContextChunks({chunkLines: 4, maxChunks: 8, maxChars: 10_000});
    chunks.remember("a.ts", numbered(100, "a"), 10);
    chunks.remember("b.ts", numbered(100, "b"), 10);
    const before = chunks.for("c.ts", {firstLine: 0, lastLine: 0});
    chunks.remember("a.ts", numbered(100, "a"), 10);
    assert.deepEqual(chunks.for("c.ts", {firstLine: 0, lastLine: 0}), before, "the prompt's head stays as it was");
    chunks.remember("a.ts", numbered(100, "a"), 11);
    assert.deepEqual(chunks.for("c.ts", {firstLine: 0, lastLine: 0}).map((chunk) => chunk.text.split("\n")[0]), ["b8", "a9"]);
    assert.equal(chunks.size, 2);
});

test("the oldest chunks go past the count, and past the character budget the newest are sent", () => {
    const chunks = new ContextChunks({chunkLines: 2, maxChunks: 3, maxChars: 20});
    for (const name of ["a", "b", "c", "d"])
        chunks.remember(`${name}.ts`, numbered(2, name), 0);
    assert.equal(chunks.size, 3);
    // Each chunk is 6 characters ("c0\nc1\n"): 3 fit in 20.
    assert.deepEqual(chunks.for("x.ts", {firstLine: 0, lastLine: 0}).map((chunk) => chunk.filename), ["b.ts", "c.ts", "d.ts"]);
    const tight = new ContextChunks({chunkLines: 2, maxChunks: 3, maxChars: 13});
    for (const name of ["a", "b", "c"])
        tight.remember(`${name}.ts`, numbered(2, name), 0);
    assert.deepEqual(tight.for("x.ts", {firstLine: 0, lastLine: 0}).map((chunk) => chunk.filename), ["b.ts", "c.ts"]);
    chunks.forget("c.ts");
    assert.equal(chunks.size, 2);
    const empty = new ContextChunks();
    empty.remember("blank.ts", linesOf("\n\n  \n"), 0);
    assert.equal(empty.size, 0, "blank lines are no context");
});
