import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {withoutAttributionLine} from "../../../src/protocols/messages/attributionLine.js";

const line = "x-anthropic-billing-header: cc_version=2.1.328.b7f; cc_entrypoint=cli;";

describe("withoutAttributionLine: Claude Code's billing line is not the model's to read", () => {
    it("drops the first text block that is the line, with any fields (a subagent's, an older version's nonce)", () => {
        const identity = {type: "text" as const, text: "You are a Claude agent.", cache_control: {type: "ephemeral"}};
        for (const fields of ["", " cc_is_subagent=true;", " cch=7c2e1;", " cc_workload=cron; cc_prev_msg=msg_01;"])
            assert.deepEqual(withoutAttributionLine([{type: "text", text: `${line}${fields}`}, identity]), [identity]);
    });

    it("drops the first line of a string system or of a first block that goes on, and the blank lines after it", () => {
        assert.equal(withoutAttributionLine(`${line}\n\nBe brief.\nReally.`), "Be brief.\nReally.");
        assert.deepEqual(withoutAttributionLine([{type: "text", text: `${line}\r\nBe brief.`}]), [{type: "text", text: "Be brief."}]);
    });

    it("leaves no system at all when the line was all of it", () => {
        assert.equal(withoutAttributionLine(line), undefined);
        assert.equal(withoutAttributionLine([{type: "text", text: line}]), undefined);
    });

    it("keeps the line anywhere but first, and any other system as sent", () => {
        const later = [{type: "text" as const, text: "Be brief."}, {type: "text" as const, text: line}];
        assert.equal(withoutAttributionLine(later), later);
        assert.equal(withoutAttributionLine(`Be brief.\n${line}`), `Be brief.\n${line}`);
        assert.equal(withoutAttributionLine(` ${line}`), ` ${line}`);
        assert.deepEqual(withoutAttributionLine([]), []);
        assert.equal(withoutAttributionLine(undefined), undefined);
    });
});
