import assert from "node:assert/strict";
import {ApiError} from "../../src/protocol/errors.js";

/** The ApiError that `run` throws (a test fails if it returns, or throws anything else). */
export function refusal(run: () => unknown): ApiError {
    try {
        run();
    } catch (error) {
        assert.ok(error instanceof ApiError, String(error));
        return error;
    }
    assert.fail("accepted");
}
