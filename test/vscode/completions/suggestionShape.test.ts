import assert from "node:assert/strict";
import {test} from "node:test";
import {shapeSuggestion, wantsMultiline, type SuggestionPlace} from "../../../src/vscode/completions/suggestionShape.js";

const place = (linePrefix: string, lineSuffix = "", rest = "", previousLine = ""): SuggestionPlace =>
    ({linePrefix, lineSuffix, previousLine, suffix: lineSuffix + rest});

test("several lines where the cursor ends a block header, or sits on a blank line after one; one line elsewhere", () => {
    for (const header of ["if (x) {", "def f(a):", "const f = () =>", "items.forEach((item) =>", "call(", "list = [", "5.times do"])
        assert.equal(wantsMultiline(place(header)), true, header);
    assert.equal(wantsMultiline(place("    ", "", "", "while (true) {")), true);
    assert.equal(wantsMultiline(place("f({", "})")), true, "closers after the cursor leave room for a body");
    for (const statement of ["const x = ", "return a", "std::", "x: int", "print(a, "])
        assert.equal(wantsMultiline(place(statement)), false, statement);
    assert.equal(wantsMultiline(place("if (x) {", "y")), false, "code after the cursor: one line");
    assert.equal(wantsMultiline(place("    ", "", "", "x = 1")), false);
});

test("one line: the text ends at the first line end, trailing blanks dropped", () => {
    assert.equal(shapeSuggestion("1 + 2;  \nconsole.log(x);", place("const x = "), false), "1 + 2;");
    assert.equal(shapeSuggestion("\nreturn 1;", place("const x = "), false), null, "nothing before the line end");
    assert.equal(shapeSuggestion("   ", place("x"), false), null);
});

test("the rest of the cursor's line is not repeated: all of it, or its closers", () => {
    assert.equal(shapeSuggestion("a, b)", place("foo(", ", b)"), false), "a");
    assert.equal(shapeSuggestion("\"hi\")", place("print(", ")"), false), "\"hi\"");
    assert.equal(shapeSuggestion("\"hi\"))", place("print(", ")) + 1"), false), "\"hi\"");
    assert.equal(shapeSuggestion("bc", place("a", "c"), false), "b", "the model wrote the rest of the line again");
    assert.equal(shapeSuggestion("bc", place("a", "cd"), false), "bc", "a letter that happens to match is no closer");
    assert.equal(shapeSuggestion(")", place("print(", ")"), false), null, "only what is there already");
});

test("a blank line's suggestion that is the next line already is not shown", () => {
    assert.equal(shapeSuggestion("return x;", place("    ", "", "\n    return x;\n}"), false), null);
    assert.equal(shapeSuggestion("return y;", place("    ", "", "\n    return x;\n}"), false), "return y;");
});

test("a block body stops where the model leaves the block, and before the closer that follows already", () => {
    const body = "\n    if (a) {\n        return 1;\n    }\n    return 2;\n}\nfunction next() {\n";
    assert.equal(shapeSuggestion(body, place("function f(a) {", "", "\n"), true),
        "\n    if (a) {\n        return 1;\n    }\n    return 2;\n}");
    assert.equal(shapeSuggestion(body, place("function f(a) {", "", "\n}\n"), true),
        "\n    if (a) {\n        return 1;\n    }\n    return 2;", "the file's own } is not written twice");
    assert.equal(shapeSuggestion("return 1\n    def g(self):\n        pass", place("        ", "", "", "    def f(self):"), true),
        "return 1", "a line back at the header's indentation that closes nothing is the next block");
    assert.equal(shapeSuggestion("\n  a: 1,\n})", place("f({", "})"), true), "\n  a: 1,");
});
