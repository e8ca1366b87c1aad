import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {conversationNotFound, requestAborted} from "../../src/protocol/errors.js";

describe("ApiError", () => {
    it("sends the pseudo-status 499 (the client went away) as 400, decided in one place; other statuses as they are", () => {
        assert.deepEqual([requestAborted().status, requestAborted().sentStatus], [499, 400]);
        assert.equal(conversationNotFound("conv_x").sentStatus, 404);
    });
});
