import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {isLoopbackHost} from "../../../src/server/middleware/hostCheck.js";

describe("isLoopbackHost: the Host header is parsed strictly", () => {
    it("accepts loopback names and addresses, with or without a valid port", () => {
        for (const host of [
            "localhost", "LOCALHOST", "localhost:8080", "127.0.0.1", "127.0.0.1:1", "127.255.3.4:65535", "[::1]", "[::1]:8080",
            "[0:0:0:0:0:0:0:1]:80", "app.localhost", "a-b.c.localhost:3000"
        ])
            assert.equal(isLoopbackHost(host), true, host);
    });

    it("refuses anything after a bracketed address, a bad port or a look-alike name", () => {
        for (const host of [
            "[::1].evil", "[::1]evil", "[::1]:80.evil", "[::1]:", "[::1]:x", "[::1]:65536", "[::1", "::1]", "[::2]", "[::ffff:7f00:1]",
            "[fe80::1%25eth0]", "localhost:", "localhost:8080:80", "localhost:-1", "localhost:99999", "localhost.evil", "evil.localhost.",
            "127.0.0.1.evil", "127.0.0.256", "127.0.0", "127.1", "0x7f.0.0.1", "0127.0.0.1", "128.0.0.1", "localhost@evil", "local host",
            "evil.example", "", " localhost", "-.localhost", ".localhost", "a..localhost", "localhost/", "127.0.0.1:80 "
        ])
            assert.equal(isLoopbackHost(host), false, JSON.stringify(host));
        assert.equal(isLoopbackHost(undefined), false);
    });

    it("accepts configured extra host names (case-insensitively, with any valid port) and nothing built on them", () => {
        const extra = ["dev.internal"];
        assert.equal(isLoopbackHost("dev.internal", extra), true);
        assert.equal(isLoopbackHost("DEV.internal:8080", extra), true);
        assert.equal(isLoopbackHost("dev.internal.evil", extra), false);
        assert.equal(isLoopbackHost("dev.internal:80x", extra), false);
        assert.equal(isLoopbackHost("x.dev.internal", extra), false);
    });
});
