import {execFile} from "node:child_process";
import {createHash} from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import {promisify} from "node:util";
import {syntheticModelDir} from "./syntheticModel.js";
import {repoRoot, sharedDir} from "./paths.js";

const run = promisify(execFile);
const templatesDir = path.join(sharedDir, "models/templates");
const bundle = path.join(repoRoot, "node_modules/node-llama-cpp/llama/gitRelease.bundle");

export {templateFamilies, type TemplateFamilies} from "./templateFamilies.js";

/**
 * A model with a real family's tokenizer and chat template (`../shared/models/templates/`), `script` making it write the
 * family's call or thought opener; `shape` a real small model's body (random weights: its cost per token, its text
 * noise). Generated once per node-llama-cpp release (the llama.cpp source it ships is read) and
 * kept beside the synthetic models; files are written under a temporary name and renamed, so concurrent runs are safe.
 */
export async function templateModel(family: string, script?: "call" | "think" | {name: string, chain: string[]},
    shape?: "smollm2-135m"): Promise<string> {
    const release = await bundleRelease();
    const scriptName = typeof script === "object"
        ? `${script.name}-${createHash("sha256").update(script.chain.join("\u0000")).digest("hex").slice(0, 8)}`
        : script;
    const name = `${family}${scriptName == null ? "" : `-${scriptName}`}${shape == null ? "" : `-${shape}`}`;
    const file = path.join(syntheticModelDir, `templates-${release}`, `${name}.gguf`);
    if (await exists(file))
        return file;
    const source = await llamaSource(release);
    await fs.mkdir(path.dirname(file), {recursive: true});
    const partial = `${file}.${process.pid}.partial`;
    const maker = path.join(templatesDir, "make-template-model.mjs");
    const args = ["--family", family, "--src", source, "--out", partial, ...(shape == null ? [] : ["--shape", shape])];
    if (typeof script === "object")
        // A script of the test's own: families.mjs is given it before the maker (which reads the same module) runs.
        await run(process.execPath, ["--input-type=module", "-e", customScript, path.join(templatesDir, "families.mjs"), maker,
            JSON.stringify(script.chain), ...args, "--script", "custom"], {maxBuffer: 1 << 24});
    else
        await run(process.execPath, [maker, ...args, ...(script == null ? [] : ["--script", script])], {maxBuffer: 1 << 24});
    await fs.rename(partial, file);
    return file;
}

/** Runs make-template-model.mjs with a `custom` script added to the family (argv: families.mjs, maker, chain JSON, maker's args). */
const customScript = `
import {pathToFileURL} from "node:url";
const [familiesFile, maker, chain, ...args] = process.argv.slice(1);
const {families} = await import(pathToFileURL(familiesFile).href);
const family = families[args[args.indexOf("--family") + 1]];
family.scripts = {...family.scripts, custom: {chain: JSON.parse(chain)}};
process.argv = [process.argv[0], maker, ...args];
await import(pathToFileURL(maker).href);
`;

let release: Promise<string> | undefined;

/** The bundle's identity: its size and first bytes' hash (reading all 35 MB each run would cost more than it tells). */
function bundleRelease(): Promise<string> {
    release ??= (async () => {
        const handle = await fs.open(bundle);
        try {
            const head = Buffer.alloc(1 << 16);
            await handle.read(head, 0, head.length, 0);
            const {size} = await handle.stat();
            return createHash("sha256").update(head).update(String(size)).digest("hex").slice(0, 12);
        } finally {
            await handle.close();
        }
    })();
    return release;
}

/** A checkout of the bundle (making many models from a checkout is much faster than reading the bundle each time). */
async function llamaSource(release: string): Promise<string> {
    const source = path.join(syntheticModelDir, `llama-src-${release}`);
    if (await exists(path.join(source, "models")))
        return source;
    const partial = `${source}.${process.pid}.partial`;
    await run("git", ["clone", "-q", bundle, partial]);
    await fs.rename(partial, source).catch(async (error: unknown) => {
        await fs.rm(partial, {recursive: true, force: true});
        if (!await exists(path.join(source, "models")))
            throw error;
    });
    return source;
}

function exists(file: string): Promise<boolean> {
    return fs.access(file).then(() => true, () => false);
}
