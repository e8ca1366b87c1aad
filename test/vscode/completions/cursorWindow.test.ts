import assert from "node:assert/strict";
import {test} from "node:test";
import {cursorWindow, linesOf} from "../../../src/vscode/completions/cursorWindow.js";

const file = linesOf("a\nb\nc\nfunction f(x) {\n    return x;\n}\nd\ne\n");

test("the prefix is whole lines before the cursor's and its start, the suffix its rest and whole lines after", () => {
    const window = cursorWindow(file, {line: 4, character: 12}, {prefixLines: 2, suffixLines: 1});
    assert.equal(window.prefix, "c\nfunction f(x) {\n    return x");
    assert.equal(window.suffix, ";\n}\n");
    assert.equal(window.linePrefix, "    return x");
    assert.equal(window.lineSuffix, ";");
    assert.deepEqual([window.firstLine, window.lastLine], [2, 5]);
});

test("the window stops at the file's ends: no newline is made up after the last line", () => {
    const top = cursorWindow(file, {line: 0, character: 1}, {prefixLines: 100, suffixLines: 0});
    assert.equal(top.prefix, "a");
    assert.equal(top.suffix, "\n", "more lines follow: the cursor's line ends");
    const bottom = cursorWindow(file, {line: 8, character: 0}, {prefixLines: 1, suffixLines: 100});
    assert.equal(bottom.prefix, "e\n");
    assert.equal(bottom.suffix, "");
    assert.deepEqual([bottom.firstLine, bottom.lastLine], [7, 8]);
});

test("prefix and suffix put together are the file's lines of the window, cut at the cursor", () => {
    const text = "x = 1\r\ny = 2\r\nz = 3";
    const window = cursorWindow(linesOf(text), {line: 1, character: 3}, {prefixLines: 10, suffixLines: 10});
    assert.equal(window.prefix + window.suffix, "x = 1\ny = 2\nz = 3");
});
