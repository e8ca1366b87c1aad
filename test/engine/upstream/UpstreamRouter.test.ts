import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {Upstream} from "../../../src/engine/upstream/Upstream.js";
import {UpstreamRouter} from "../../../src/engine/upstream/UpstreamRouter.js";
import {parseRetryAfter, statusError} from "../../../src/engine/upstream/upstreamErrors.js";
import {prefixKey} from "../../../src/engine/upstream/prefixKey.js";

describe("upstream routing", () => {
    const make = () => [new Upstream("http://127.0.0.1:1/v1", null), new Upstream("http://user:secret@127.0.0.1:2/", "k")];

    it("strips credentials and /v1 from the shown URL, and sends the key as a bearer header", () => {
        const [a, b] = make();
        assert.equal(a!.base, "http://127.0.0.1:1");
        assert.equal(b!.label, "http://127.0.0.1:2");
        assert.deepEqual(b!.headers(true), {"content-type": "application/json", authorization: "Bearer k"});
    });

    it("sends a new key to the least busy, keeps a key where it went, and moves it when that one is down or overloaded", () => {
        const [a, b] = make();
        const router = new UpstreamRouter([a!, b!], {slack: 2});
        a!.outstanding = 1;
        assert.equal(router.pick("chain"), b);
        b!.outstanding = 3;
        assert.equal(router.pick("chain"), b, "within the slack the key stays");
        b!.outstanding = 4;
        assert.equal(router.pick("chain"), a, "overloaded: moved to the least busy");
        b!.outstanding = 0;
        assert.equal(router.pick("chain"), a, "and stays there");
        a!.markDown("stopped");
        assert.equal(router.pick("chain"), b);
        b!.busyUntil = Date.now() + 60_000;
        assert.equal(router.pick("chain"), null);
        assert.equal(router.pick(undefined, new Set([b!])), null);
    });

    it("takes tied upstreams in turn, so sequential requests without a key spread", () => {
        const [a, b] = make();
        const router = new UpstreamRouter([a!, b!]);
        const picks = [0, 1, 2, 3].map(() => router.pick(undefined));
        assert.deepEqual(picks, [a, b, a, b]);
    });

    it("keys requests by their opening turns, so every turn of a chain shares one key", () => {
        const first = prefixKey([{role: "system", text: "s"}, {role: "user", text: "q1"}]);
        const later = prefixKey([
            {role: "system", text: "s"}, {role: "user", text: "q1"}, {role: "model", parts: [{type: "text", text: "a"}]},
            {role: "user", text: "q2"}
        ]);
        assert.equal(first, later);
        assert.notEqual(first, prefixKey([{role: "system", text: "s"}, {role: "user", text: "other"}]));
    });
});

describe("upstream error statuses", () => {
    it("passes 429/503 on with Retry-After, reads context errors, and calls the rest rejected or bad gateway", () => {
        const busy = statusError("u", 429, JSON.stringify({error: {message: "slow down"}}), "7");
        assert.equal(busy.kind, "upstream_busy");
        assert.deepEqual(busy.details, {status: 429, retryAfterSeconds: 7});
        assert.match(busy.message, /slow down/);
        assert.equal(statusError("u", 400, JSON.stringify({error: {message: "the request exceeds the available context size"}}), null).kind,
            "context_overflow");
        assert.equal(statusError("u", 400, JSON.stringify({error: {message: "Failed to initialize samplers"}}), null).kind,
            "upstream_rejected");
        assert.equal(statusError("u", 401, "{}", null).kind, "upstream_error");
        assert.equal(statusError("u", 500, "plain text", null).kind, "upstream_error");
        assert.equal(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())! >= 4, true);
        assert.equal(parseRetryAfter("soon"), undefined);
    });
});
