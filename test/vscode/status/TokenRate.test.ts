import assert from "node:assert/strict";
import {test} from "node:test";
import {TokenRate} from "../../../src/vscode/status/TokenRate.js";

test("token rate over a sliding window", () => {
    const rate = new TokenRate(2000);
    assert.equal(rate.perSecond(0), 0);
    rate.record(0, 0);
    rate.record(500, 250);
    rate.record(1000, 500);
    assert.equal(rate.perSecond(1000), 500);
    // Tokens stop: the rate decays as time passes with no new samples.
    assert.equal(rate.perSecond(2000), 250);
    // Samples older than the window leave it, but one stays as the baseline: (700 - 500) tokens over 4.5 s.
    rate.record(5000, 600);
    rate.record(5500, 700);
    assert.ok(Math.abs(rate.perSecond(5500) - 200 / 4.5) < 1e-9, String(rate.perSecond(5500)));
    rate.record(7600, 1700);
    assert.ok(Math.abs(rate.perSecond(7600) - (1700 - 700) / 2.1) < 1e-9, "the baseline moves up once the next sample is old enough");
    rate.reset();
    assert.equal(rate.perSecond(6000), 0);
});
