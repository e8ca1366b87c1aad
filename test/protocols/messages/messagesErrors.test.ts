import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {contextLengthExceeded} from "../../../src/protocol/errors.js";
import {toMessagesError} from "../../../src/protocols/messages/messagesErrors.js";

describe("toMessagesError: a prompt over the context in Anthropic's words", () => {
    it("names the prompt's tokens and the most the context takes, as Claude Code matches it to compact", () => {
        const error = contextLengthExceeded("The input is 5000 tokens, which leaves no room for output in the context of 4096 tokens.",
            {promptTokens: 5000, contextSize: 4096});
        const message = "prompt is too long: 5000 tokens > 4095 maximum";
        assert.deepEqual(toMessagesError(error), {status: 400, body: {type: "error", error: {type: "invalid_request_error", message}}});
    });

    it("an overflow nobody counted (an upstream's own refusal) keeps its reason after the same opening words", () => {
        const {body} = toMessagesError(contextLengthExceeded("upstream: the request exceeds the available context size"));
        assert.equal(body.error.message, "prompt is too long: upstream: the request exceeds the available context size");
    });
});
