import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {describeEntry, parseCatalog} from "../../../src/vscode/models/modelCatalog.js";
import {pinRevision} from "../../../src/vscode/models/pinRevision.js";

const commit = "0123456789abcdef0123456789abcdef01234567";
const sha256 = "a".repeat(64);

describe("parseCatalog: https only, revisions pinned into the URI, checksums kept", () => {
    it("drops plain http entries except loopback ones", () => {
        const {entries, problems} = parseCatalog([
            {label: "Plain", uri: "http://example.com/model.gguf"},
            {label: "Loopback", uri: "http://127.0.0.1:8080/model.gguf"},
            {label: "Secure", uri: "https://example.com/model.gguf"}
        ], "test");
        assert.deepEqual(entries.map((entry) => entry.label), ["Loopback", "Secure"]);
        assert.equal(problems.length, 1);
        assert.match(problems[0]!, /entry 1 needs a label and an hf: URI or https URL/);
    });

    it("pins an hf: file URI and a huggingface.co resolve URL to the entry's commit", () => {
        const {entries, problems} = parseCatalog([
            {label: "File", uri: "hf:user/repo-GGUF/model-Q4_K_M.gguf", revision: commit, sha256: sha256.toUpperCase()},
            {label: "URL", uri: "https://huggingface.co/user/repo-GGUF/resolve/main/sub/model.gguf?download=true", revision: commit}
        ], "test");
        assert.deepEqual(problems, []);
        assert.equal(entries[0]!.uri, `hf:user/repo-GGUF/model-Q4_K_M.gguf#${commit}`);
        assert.equal(entries[0]!.sha256, sha256, "kept lowercase");
        assert.equal(entries[1]!.uri, `https://huggingface.co/user/repo-GGUF/resolve/${commit}/sub/model.gguf?download=true`);
        assert.equal(entries[1]!.sha256, null);
        assert.equal(describeEntry(entries[0]!), "pinned 0123456 · SHA-256 checked");
    });

    it("drops an entry whose pin or checksum cannot be honoured, saying why", () => {
        const {entries, problems} = parseCatalog([
            {label: "Branch", uri: "hf:user/repo/model.gguf", revision: "main"},
            {label: "Quant", uri: "hf:user/repo:Q4_K_M", revision: commit},
            {label: "Short hash", uri: "https://example.com/model.gguf", sha256: "abc"},
            {label: "Unresolved", uri: "hf:user/repo:Q4_K_M", sha256},
            {label: "Split", uri: "https://example.com/model-00001-of-00003.gguf", sha256}
        ], "test");
        assert.deepEqual(entries, []);
        assert.match(problems[0]!, /Branch.*40-digit commit hash/);
        assert.match(problems[1]!, /Quant.*revision applies to/);
        assert.match(problems[2]!, /Short hash.*64 hex digits/);
        assert.match(problems[3]!, /Unresolved.*checks one file/);
        assert.match(problems[4]!, /Split.*checks one file/);
    });

    it("an entry without revision or checksum is as before", () => {
        const uri = "hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M";
        const {entries} = parseCatalog({models: [{label: "Qwen", uri, quantization: "Q4_K_M"}]}, "test");
        assert.deepEqual({revision: entries[0]!.revision, sha256: entries[0]!.sha256, uri: entries[0]!.uri},
            {revision: null, sha256: null, uri});
    });

    it("pinRevision leaves URIs it cannot pin alone", () => {
        assert.equal(pinRevision("https://example.com/resolve/main/a/model.gguf", commit), null, "not Hugging Face");
        assert.equal(pinRevision(`hf:user/repo/model.gguf#${commit}`, commit), null, "already pinned");
    });
});
