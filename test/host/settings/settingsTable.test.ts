import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {integer, list, choice} from "../../../src/host/settings/settingKinds.js";
import {cliSettings, editorSettings} from "../../../src/host/settings/settingsTable.js";

describe("the settings table", () => {
    it("names each flag, environment variable and editor key once", () => {
        const once = (names: string[]) => assert.deepEqual(names.filter((name, index) => names.indexOf(name) !== index), []);
        once(cliSettings.map(({cli}) => cli.flag));
        once(cliSettings.flatMap(({cli}) => cli.env ?? []));
        once(editorSettings.map(({setting}) => setting.editor.key));
        assert.ok(cliSettings.every(({cli}) => cli.env == null || cli.env.startsWith("LOCAL_RESPONSES_")));
    });

    it("gives every editor setting a default its own kind accepts", () => {
        for (const {name, setting: {kind, editor}} of editorSettings) {
            const reading = kind.fromJson(kind.toJson(editor.default));
            assert.ok(!("expected" in reading), `${name}: ${JSON.stringify(reading)}`);
        }
    });
});

describe("setting kinds read both faces alike", () => {
    it("integers: the same bounds from a flag and from settings.json; 0 stands for automatic where allowed", () => {
        const threads = integer({min: 1, max: 4, auto: true});
        assert.deepEqual([threads.fromCli("0"), threads.fromJson(0), threads.fromCli("4")], [{value: 0}, {value: 0}, {value: 4}]);
        assert.deepEqual(threads.fromCli("5"), {expected: "an integer from 1 to 4, or 0 (automatic)"});
        assert.deepEqual(threads.fromJson("2"), {expected: "an integer from 1 to 4, or 0 (automatic)"}, "settings.json holds numbers");
        assert.deepEqual(integer({min: 1}).fromCli("0"), {expected: "an integer from 1 up"});
    });

    it("choices take their aliases; lists split the environment's commas and keep apart the items they reject", () => {
        const gpu = choice<false | "auto">([false, "auto"], {off: false});
        assert.deepEqual([gpu.fromCli("false"), gpu.fromJson(false), gpu.fromCli("off"), gpu.fromJson("auto")],
            [{value: false}, {value: false}, {value: false}, {value: "auto"}]);
        const urls = list({many: "URLs", item: {one: "a URL", test: (item) => item.startsWith("http")}});
        assert.deepEqual(urls.fromCli("http://a, ftp://b,,"), {value: ["http://a"], rejected: ["ftp://b"]});
        assert.deepEqual(urls.fromJson([" http://a ", ""]), {value: ["http://a"], rejected: []});
        assert.deepEqual(urls.fromJson("http://a"), {expected: "a list of URLs"});
    });
});
