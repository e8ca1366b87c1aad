import assert from "node:assert/strict";
import {test} from "node:test";
import {planResidency, type ResidentModel} from "../../../src/engine/library/residency.js";

const model = (id: string, bytes: number, lastUsedAt: number, busy = false): ResidentModel => ({id, bytes, lastUsedAt, busy});
const gib = 2 ** 30;

test("room to spare: nothing is unloaded", () => {
    assert.deepEqual(planResidency([model("a", gib, 1)], gib, {maxLoaded: 2, memoryBudgetBytes: 4 * gib}), {kind: "fits", evict: []});
});

test("past the count, the least recently used idle model goes, not a busier or newer one", () => {
    const resident = [model("new", gib, 30), model("old", gib, 10), model("busy-oldest", gib, 1, true)];
    assert.deepEqual(planResidency(resident, gib, {maxLoaded: 3, memoryBudgetBytes: 100 * gib}), {kind: "fits", evict: ["old"]});
});

test("past the budget, as few idle models go as make room, oldest first", () => {
    const resident = [model("a", 2 * gib, 1), model("b", 2 * gib, 2), model("c", 2 * gib, 3)];
    assert.deepEqual(planResidency(resident, 3 * gib, {maxLoaded: 10, memoryBudgetBytes: 8 * gib}), {kind: "fits", evict: ["a"]});
    assert.deepEqual(planResidency(resident, 5 * gib, {maxLoaded: 10, memoryBudgetBytes: 8 * gib}), {kind: "fits", evict: ["a", "b"]});
});

test("only busy models in the way: wait, and unload nothing meanwhile", () => {
    const resident = [model("idle", gib, 1), model("busy", 3 * gib, 2, true)];
    assert.deepEqual(planResidency(resident, 2 * gib, {maxLoaded: 10, memoryBudgetBytes: 4 * gib}), {kind: "wait", drain: ["busy"]});
    assert.deepEqual(planResidency([model("busy", gib, 1, true)], gib, {maxLoaded: 1, memoryBudgetBytes: 100 * gib}),
        {kind: "wait", drain: ["busy"]});
    // Of several busy ones, as few as make room, least recently used first.
    const busy = [model("b1", gib, 5, true), model("b2", gib, 2, true), model("b3", gib, 9, true)];
    assert.deepEqual(planResidency(busy, gib, {maxLoaded: 3, memoryBudgetBytes: 100 * gib}), {kind: "wait", drain: ["b2"]});
});

test("a model larger than the whole budget never fits, whatever is unloaded", () => {
    assert.deepEqual(planResidency([], 5 * gib, {maxLoaded: 4, memoryBudgetBytes: 4 * gib}), {kind: "never"});
});
