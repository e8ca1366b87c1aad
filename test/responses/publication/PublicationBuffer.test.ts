import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {StreamEvent, UnnumberedEvent} from "../../../src/protocol/wire.js";
import {PublicationBuffer} from "../../../src/responses/publication/PublicationBuffer.js";

const delta = (outputIndex: number, text: string): UnnumberedEvent =>
    ({
        type: "response.output_text.delta", item_id: `msg_${outputIndex}`, output_index: outputIndex, content_index: 0, delta: text,
        logprobs: []
    });
const added = (outputIndex: number): UnnumberedEvent =>
    ({
        type: "response.output_item.added", output_index: outputIndex,
        item: {type: "function_call", id: `fc_${outputIndex}`, call_id: "call", name: "f", arguments: "", status: "in_progress"}
    });
const compactionStarted: UnnumberedEvent = {type: "response.compaction.started", response_id: "resp_1", input_tokens: 10};

function buffer(options: ConstructorParameters<typeof PublicationBuffer>[1] = {}) {
    const published: StreamEvent[] = [];
    return {published, publication: new PublicationBuffer((event) => published.push(event), options)};
}

const summary = (events: StreamEvent[]) => events.map(
    (event) => `${event.sequence_number}:${event.type}${"delta" in event ? `=${event.delta}` : ""}`
);

describe("PublicationBuffer", () => {
    it("publishes at once when nothing is held, numbering from the first sequence number", () => {
        const {published, publication} = buffer({firstSequenceNumber: 2});
        publication.lifecycle(compactionStarted);
        publication.content(delta(0, "a"));
        assert.deepEqual(summary(published), ["2:response.compaction.started", "3:response.output_text.delta=a"]);
        assert.equal(publication.nextSequenceNumber, 4);
    });

    it("holds content while lifecycle events go out, then numbers the held events in publication order on release", () => {
        const {published, publication} = buffer({holdContent: true});
        publication.content(delta(0, "a"));
        publication.lifecycle(compactionStarted);
        publication.content(delta(0, "b"));
        assert.deepEqual(summary(published), ["0:response.compaction.started"], "content waits; the lifecycle event does not");
        publication.release();
        publication.content(delta(0, "c"));
        assert.deepEqual(summary(published), [
            "0:response.compaction.started", "1:response.output_text.delta=a", "2:response.output_text.delta=b",
            "3:response.output_text.delta=c"
        ], "a strictly increasing sequence; after release content goes out at once");
    });

    it("withdraws one output item's held events, keeping those of the excepted type and other items'", () => {
        const {published, publication} = buffer({holdContent: true});
        publication.content(delta(0, "kept"));
        publication.content(added(1));
        publication.content(delta(1, "cut"));
        publication.content(delta(2, "cut too"));
        publication.withdrawItem(1, "response.output_item.added");
        publication.withdrawItem(2);
        publication.release();
        assert.deepEqual(summary(published), ["0:response.output_text.delta=kept", "1:response.output_item.added"]);
    });

    it("discards everything held: none of it is ever published, and numbering does not skip", () => {
        const {published, publication} = buffer({holdContent: true});
        publication.content(delta(0, "invalid"));
        publication.discard();
        publication.lifecycle(compactionStarted);
        publication.release();
        assert.deepEqual(summary(published), ["0:response.compaction.started"]);
    });
});
