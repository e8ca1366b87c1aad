import {register} from "node:module";
import path from "node:path";
import {pathToFileURL} from "node:url";

/**
 * Where GPU builds fetched by `local-responses gpu install` (or the editor's "Enable GPU…") live, and how
 * node-llama-cpp finds them there.
 *
 * node-llama-cpp looks for a prebuilt build only with `import("@node-llama-cpp/<platform>-<gpu>")` from its own
 * folder (getPrebuiltBinariesPackageDirectoryForBuildOptions in its dist/bindings/utils/compileLLamaCpp.js), and an
 * ESM import ignores NODE_PATH. The builds are not put into node_modules (a VSIX's folder is replaced on every update,
 * and a packed CLI's may not be writable): they sit in `<folder>/node_modules/@node-llama-cpp/<name>` and a module
 * resolve hook, for `@node-llama-cpp/*` specifiers that node_modules cannot resolve, resolves them again as if
 * imported from `<folder>`. The folder travels in an environment variable so that model processes (forked) and the
 * tokenizer's worker threads, each of which loads its own backend, find the same builds.
 */
export const gpuBuildsFolderVariable = "LOCAL_RESPONSES_GPU_BUILDS";

/** The GPU builds' folder inside a data folder (the CLI's, or the extension's global storage). */
export function gpuBuildsFolder(dataDir: string): string {
    return path.join(dataDir, "gpu");
}

/** Where one package of a GPU build is installed in `folder`. */
export function installedPackageFolder(folder: string, packageName: string): string {
    return path.join(folder, "node_modules", ...packageName.split("/"));
}

/**
 * The resolve hook, as source for a data: URL: it runs on the loader's own thread, and a bundle (dist/cli.js, the
 * extension) has no file of its own to point `register` at.
 */
const resolveHookSource = `
let parentUrls = [];
export function initialize(data) { parentUrls = data.parentUrls; }
export async function resolve(specifier, context, nextResolve) {
    if (!specifier.startsWith("@node-llama-cpp/"))
        return nextResolve(specifier, context);
    try {
        return await nextResolve(specifier, context);
    } catch (error) {
        for (const parentURL of parentUrls) {
            try { return await nextResolve(specifier, {...context, parentURL}); } catch {}
        }
        throw error;
    }
}`;

const hooked = new Set<string>();

/**
 * Lets node-llama-cpp find the GPU builds installed in the folder named by `LOCAL_RESPONSES_GPU_BUILDS` (once per
 * thread and folder; nothing when it is unset). A build installed beside node-llama-cpp still wins.
 */
export function useInstalledGpuBuilds(env: NodeJS.ProcessEnv = process.env): void {
    const folder = env[gpuBuildsFolderVariable];
    if (folder == null || folder === "" || hooked.has(folder))
        return;
    hooked.add(folder);
    // The trailing "/" makes the folder itself the importer, so resolution walks up from <folder>/node_modules.
    const parentUrls = [pathToFileURL(path.resolve(folder) + path.sep).href];
    try {
        register(`data:text/javascript,${encodeURIComponent(resolveHookSource)}`, {data: {parentUrls}});
    } catch (error) {
        // A runtime without module hooks must not stop the builds beside node-llama-cpp (the CPU one) from loading.
        process.stderr.write(`gpu: cannot look for GPU builds in ${folder}: ${(error as Error).message}\n`);
    }
}
