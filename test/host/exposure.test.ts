import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {checkExposure, describeAuth, ExposureRefusal, isLoopbackBindAddress} from "../../src/host/exposure.js";

describe("exposure rules (--host, --no-auth, --allowed-origins)", () => {
    it("knows loopback listen addresses from the rest", () => {
        for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"])
            assert.equal(isLoopbackBindAddress(host), true, host);
        for (const host of ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com", "::ffff:127.0.0.1x"])
            assert.equal(isLoopbackBindAddress(host), false, host);
    });

    it("refuses an unauthenticated server off loopback, naming the flags", () => {
        assert.throws(() => checkExposure({host: "0.0.0.0", authRequired: false, allowedOrigins: []}),
            (error: unknown) => error instanceof ExposureRefusal && /--host 0\.0\.0\.0.*--no-auth/s.test(error.message));
        assert.throws(() => checkExposure({host: "::", authRequired: false, allowedOrigins: []}), ExposureRefusal);
    });

    it("refuses a wildcard origin without a key, even on loopback", () => {
        assert.throws(() => checkExposure({host: "127.0.0.1", authRequired: false, allowedOrigins: ["*"]}), /needs an API key/);
        assert.deepEqual(checkExposure({host: "127.0.0.1", authRequired: true, allowedOrigins: ["*"]}), []);
    });

    it("warns, naming the address, when a keyed server listens off loopback", () => {
        const [warning, ...rest] = checkExposure({host: "0.0.0.0", authRequired: true, allowedOrigins: []});
        assert.match(warning!, /listening on 0\.0\.0\.0.*the API key is now the only barrier/);
        assert.deepEqual(rest, []);
        assert.deepEqual(checkExposure({host: "127.0.0.1", authRequired: false, allowedOrigins: []}), []);
    });

    it("tells the truth about auth", () => {
        assert.match(describeAuth(1, true)!, /auth: on .*--no-auth ignored/);
        assert.match(describeAuth(0, true)!, /auth: disabled/);
        assert.equal(describeAuth(2, false), null);
        assert.equal(describeAuth(0, false), null);
    });
});
