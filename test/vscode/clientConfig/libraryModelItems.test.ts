import assert from "node:assert/strict";
import {test} from "node:test";
import {
    libraryModelItem, mainModelItems, offersChoice, smallestModel, smallModelItems
} from "../../../src/vscode/clientConfig/libraryModelItems.js";
import {libraryEntry} from "../../helpers/libraryModels.js";

const GiB = 2 ** 30;
const library = [
    libraryEntry("coder", {status: "loaded", fileBytes: 18 * GiB, quantization: "Q4_K_M"}),
    libraryEntry("thinker", {fileBytes: 9 * GiB}),
    libraryEntry("small", {fileBytes: 1.5 * GiB, quantization: "Q8_0"})
];

test("only a library of several models offers a choice", () => {
    assert.equal(offersChoice(null), false);
    assert.equal(offersChoice([]), false);
    assert.equal(offersChoice([libraryEntry("only")]), false);
    assert.equal(offersChoice(library), true);
});

test("a row shows the model's state, file size and quantization, after its note; an unknown size is left out", () => {
    assert.deepEqual(libraryModelItem(library[0]!), {label: "coder", description: "loaded · 18.00 GiB · Q4_K_M", id: "coder"});
    assert.deepEqual(libraryModelItem(libraryEntry("new", {fileBytes: 0, status: "loading"}), "default"),
        {label: "new", description: "default · loading", id: "new"});
});

test("the main model's rows: the library's default first, then the others in order", () => {
    assert.deepEqual(mainModelItems(library, "thinker").map((item) => [item.id, item.description]), [
        ["thinker", "default · unloaded · 9.00 GiB"],
        ["coder", "loaded · 18.00 GiB · Q4_K_M"],
        ["small", "unloaded · 1.50 GiB · Q8_0"]
    ]);
    assert.deepEqual(mainModelItems(library, null).map((item) => item.id), ["coder", "thinker", "small"],
        "no default: the library's order");
    assert.deepEqual(mainModelItems(library, "gone").map((item) => item.id), ["coder", "thinker", "small"]);
});

test("the small model's rows: the smallest file first, then the main model, then the rest", () => {
    assert.equal(smallestModel(library)?.id, "small");
    assert.equal(smallestModel([libraryEntry("a"), libraryEntry("b")])?.id, "a", "the first of equals");
    assert.equal(smallestModel([]), undefined);
    assert.deepEqual(smallModelItems(library, "coder").map((item) => [item.id, item.description]), [
        ["small", "smallest · unloaded · 1.50 GiB · Q8_0"],
        ["coder", "same as the main model · loaded · 18.00 GiB · Q4_K_M"],
        ["thinker", "unloaded · 9.00 GiB"]
    ]);
    assert.deepEqual(smallModelItems(library, "small").map((item) => [item.id, item.description.split(" · ")[0]]), [
        ["small", "same as the main model"], ["coder", "loaded"], ["thinker", "unloaded"]
    ], "the main model is the smallest: one row for it, first");
});
