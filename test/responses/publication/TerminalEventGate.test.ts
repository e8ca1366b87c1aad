import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {StreamEvent} from "../../../src/protocol/wire.js";
import {TerminalEventGate} from "../../../src/responses/publication/TerminalEventGate.js";

const event = (type: string, sequence: number) => ({type, sequence_number: sequence}) as unknown as StreamEvent;

describe("TerminalEventGate", () => {
    it("holds completed and incomplete until opened, passes everything else and failures at once", () => {
        for (const terminal of ["response.completed", "response.incomplete"]) {
            const seen: string[] = [];
            const gate = new TerminalEventGate((published) => seen.push(published.type));
            gate.publish(event("response.output_text.delta", 0));
            gate.publish(event(terminal, 1));
            assert.deepEqual(seen, ["response.output_text.delta"]);
            gate.open();
            assert.deepEqual(seen, ["response.output_text.delta", terminal]);
            gate.publish(event("response.completed", 2));
            assert.equal(seen.length, 3, "after opening nothing is held");
        }
        const seen: string[] = [];
        new TerminalEventGate((published) => seen.push(published.type)).publish(event("response.failed", 0));
        assert.deepEqual(seen, ["response.failed"], "a failed response is not stored: nothing to wait for");
    });
});
