import assert from "node:assert/strict";
import type {AddressInfo} from "node:net";
import {after, before, describe, it} from "node:test";
import express from "express";
import {EngineError} from "../../../src/engine/EngineError.js";
import {toApiError} from "../../../src/responses/engineErrors.js";
import {ApiError} from "../../../src/protocol/errors.js";
import {errorHandler} from "../../../src/server/middleware/errorHandler.js";

/** A small app whose routes fail in each way the error handler must map, behind the real handler. */
describe("errorHandler", () => {
    const logged: string[] = [];
    let origin: string;
    let close: () => void;
    before(async () => {
        const app = express();
        const secretFailure = () => new TypeError("Cannot read properties of undefined (reading 'secretField')");
        app.get("/http-4xx", () => {
            throw Object.assign(new Error("Range Not Satisfiable, as the library words it"), {status: 416, expose: true});
        });
        app.get("/http-4xx-hidden", () => {
            throw Object.assign(new Error("hidden library wording"), {statusCode: 422, expose: false});
        });
        app.get("/http-5xx", () => {
            throw Object.assign(new Error("stream.not.readable internals"), {status: 500, expose: false});
        });
        app.get("/bug", () => {
            throw secretFailure();
        });
        app.get("/wrapped-bug", () => {
            throw toApiError(secretFailure());
        });
        app.get("/load-failed", () => {
            throw toApiError(new EngineError("load_failed", "Could not load model 'x.gguf': no such file"));
        });
        app.get("/overloaded", () => {
            throw toApiError(new EngineError("queue_full", "All 1 sequences are busy."));
        });
        app.get("/limited", () => {
            throw new ApiError(429, "Too many.", {code: "rate_limit_exceeded"});
        });
        app.get("/not-ready", () => {
            throw toApiError(new EngineError("not_ready", "No model is loaded."));
        });
        app.use(errorHandler((line) => logged.push(line)));
        const server = app.listen(0, "127.0.0.1");
        await new Promise((resolve) => server.once("listening", resolve));
        origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        close = () => server.close();
    });
    after(() => close());

    const get = async (path: string) => {
        const res = await fetch(`${origin}${path}`);
        const body = await res.json() as {error: {message: string, type: string, param: string | null, code: string | null}};
        assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "param", "type"]);
        return {status: res.status, error: body.error, retryAfter: res.headers.get("retry-after")};
    };

    it("keeps a library error's 4xx status, with its message only when the library exposes it", async () => {
        const shown = await get("/http-4xx");
        assert.equal(shown.status, 416);
        assert.equal(shown.error.type, "invalid_request_error");
        assert.match(shown.error.message, /as the library words it/);
        const hidden = await get("/http-4xx-hidden");
        assert.equal(hidden.status, 422);
        assert.equal(hidden.error.message, "Unprocessable Entity");
    });

    it("answers an unexpected failure with a generic 500 server_error and logs the failure with its stack", async () => {
        for (const path of ["/bug", "/wrapped-bug", "/http-5xx"]) {
            logged.length = 0;
            const {status, error} = await get(path);
            assert.equal(status, 500, path);
            assert.equal(error.type, "server_error");
            assert.equal(error.code, "server_error");
            assert.equal(error.message, "The server had an error while processing your request.");
            assert.equal(logged.length, 1, path);
            assert.match(logged[0]!, new RegExp(`GET ${path}`));
        }
        logged.length = 0;
        await get("/bug");
        assert.match(logged[0]!, /secretField[\s\S]*\n\s+at /, "the log keeps the message and the stack");
    });

    it("keeps the engine's own 500 wording (a model that failed to load says why)", async () => {
        const {status, error} = await get("/load-failed");
        assert.equal(status, 500);
        assert.match(error.message, /Could not load model/);
    });

    it("every 429 and 503 carries Retry-After in seconds; other statuses do not", async () => {
        assert.equal((await get("/overloaded")).retryAfter, "1");
        assert.equal((await get("/limited")).retryAfter, "1", "an ApiError without its own delay gets the default");
        const notReady = await get("/not-ready");
        assert.equal(notReady.status, 503);
        assert.equal(notReady.retryAfter, "5");
        assert.equal((await get("/http-4xx")).retryAfter, null);
        assert.equal((await get("/bug")).retryAfter, null);
    });
});
