import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {cliFlags, parseCliOptions, type CliFlag} from "../../src/host/cliOptions.js";

/** The value a flag's help says it defaults to: `(default 64`, `(default false`, `(default durable`, ... */
function documentedDefault(help: string): string | undefined {
    return /\(default (127\.0\.0\.1|[0-9]+|false|true|durable|memory|f16)\b/.exec(help)?.[1];
}

describe("CLI defaults are declared once", () => {
    it("every default a flag's help states is the default the configuration really takes", () => {
        const baseline = parseCliOptions([], {});
        const checked: string[] = [];
        for (const [name, flag] of Object.entries(cliFlags) as [CliFlag, (typeof cliFlags)[CliFlag]][]) {
            const stated = documentedDefault(flag.help);
            if (stated == null || flag.type === "boolean")
                continue;
            // Setting a flag to the value its help calls the default must change nothing.
            const explicit = parseCliOptions([`--${name}`, stated], {});
            assert.deepEqual(explicit.config, baseline.config, `--${name}: its help says the default is ${stated}`);
            checked.push(name);
        }
        assert.ok(checked.length >= 30, `checked ${checked.length} flags`);
    });
});
