import assert from "node:assert/strict";
import {test} from "node:test";
import {exclusionOf, matchesGlob} from "../../../src/vscode/completions/completionExclusion.js";

test("globs as files.exclude writes them: **, *, ?, {a,b}, [abc]; a name pattern matches the name alone", () => {
    const cases: [string, string, boolean][] = [
        ["src/secrets/key.ts", "**/secrets/**", true],
        ["secrets/key.ts", "**/secrets/**", true],
        ["src/secretsx/key.ts", "**/secrets/**", false],
        ["web/app.min.js", "*.min.js", true],
        ["web/app.js", "*.min.js", false],
        ["deep/a/b/.env", "**/.env", true],
        [".env.local", "**/.env.*", true],
        [".environment", "**/.env.*", false],
        ["src/a.ts", "src/*.ts", true],
        ["src/sub/a.ts", "src/*.ts", false],
        ["src/sub/a.ts", "src/**/*.ts", true],
        ["/home/me/project/src/a.ts", "src/**/*.ts", true],
        ["a.pem", "*.{pem,key}", true],
        ["a.key", "*.{pem,key}", true],
        ["a.pub", "*.{pem,key}", false],
        ["file1.txt", "file?.txt", true],
        ["file12.txt", "file?.txt", false],
        ["b.c", "[ab].c", true],
        ["c.c", "[ab].c", false],
        ["a+b.txt", "a+b.txt", true],
        ["aab.txt", "a+b.txt", false],
        ["C:\\work\\.env", "**/.env", true]
    ];
    for (const [file, glob, expected] of cases)
        assert.equal(matchesGlob(file, glob), expected, `${file} ~ ${glob}`);
});

test("a file is skipped when excluded, too big, or no file at all, and says why", () => {
    const rules = {exclude: ["**/*.pem"], maxFileBytes: 1024};
    assert.equal(exclusionOf({path: "src/a.ts", bytes: 1024, scheme: "file"}, rules), null);
    assert.equal(exclusionOf({path: "certs/a.pem", bytes: 10, scheme: "file"}, rules), "excluded by **/*.pem");
    assert.equal(exclusionOf({path: "src/a.ts", bytes: 1025, scheme: "file"}, rules), "larger than 1 KiB");
    assert.equal(exclusionOf({path: "Local Responses", bytes: 10, scheme: "output"}, rules), "not a file (output)");
    assert.equal(exclusionOf({path: "Untitled-1", bytes: 0, scheme: "untitled"}, rules), null);
});
