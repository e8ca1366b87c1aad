import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {BackgroundJob} from "../../../src/responses/background/backgroundJob.js";
import {jobAdmissionRefusal, type JobAdmissionLimits} from "../../../src/responses/background/jobAdmission.js";

/** An active job record as admission weighs it: its owner and its bytes. */
function active(owner: string, bytes = 100): BackgroundJob {
    return {owner, bytes} as Partial<BackgroundJob> as BackgroundJob;
}

const limits: JobAdmissionLimits = {maxInputBytes: 1000, maxActive: 3, maxActivePerOwner: 2};

describe("jobAdmissionRefusal", () => {
    it("admits a job within every limit", () => {
        assert.equal(jobAdmissionRefusal("a", 500, [active("a"), active("b")], limits), null);
    });

    it("refuses in the order a client can act on: size, then total, then per key, then bytes, then the engine's queue", () => {
        const full = [active("a"), active("a"), active("b")];
        const everything = {...limits, activeBytesBudget: () => 0, generationQueueFull: () => true};
        assert.equal(jobAdmissionRefusal("a", 2000, full, everything)?.status, 413);
        assert.match(jobAdmissionRefusal("a", 10, full, everything)?.message ?? "", /3 background responses are already active/);
        assert.match(jobAdmissionRefusal("a", 10, full.slice(0, 2), everything)?.message ?? "", /This API key already has 2/);
        assert.match(jobAdmissionRefusal("b", 10, full.slice(0, 2), everything)?.message ?? "", /store byte budget/);
        assert.equal(jobAdmissionRefusal("b", 10, [], everything)?.status, 429);
        assert.equal(jobAdmissionRefusal("b", 10, [], {...limits, generationQueueFull: () => true})?.status, 503);
    });

    it("counts the new job's bytes against the budget active jobs share", () => {
        const budget = {...limits, activeBytesBudget: () => 1000};
        assert.equal(jobAdmissionRefusal("a", 800, [active("b", 200)], budget), null);
        assert.equal(jobAdmissionRefusal("a", 801, [active("b", 200)], budget)?.status, 429);
    });
});
