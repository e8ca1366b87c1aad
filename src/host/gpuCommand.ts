import path from "node:path";
import {defaultDataDir} from "./dataFolder.js";
import {gpuBuildVersion} from "../engine/models/gpuBuilds/gpuBuildPins.js";
import {gpuBuildsFolder, gpuBuildsFolderVariable} from "../engine/models/gpuBuilds/installedGpuBuilds.js";
import {
    gpuBuildPackages, gpuBuilds, installedGpuBuildsIn, installGpuBuild, removeGpuBuild, type GpuBuild, type GpuInstallProgress
} from "../engine/models/gpuBuilds/installGpuBuild.js";
import {installedBuildsLackingLibraries} from "../engine/models/gpuBuilds/missingLibraries.js";

/**
 * `local-responses gpu install cuda|vulkan`, `gpu remove [cuda|vulkan]`, `gpu status`: node-llama-cpp's GPU builds,
 * fetched on demand into `<data folder>/gpu` instead of shipping in every install (hundreds of MB). `serve` finds them
 * there on its next start (see `useGpuBuildsOf`).
 */
export const gpuHelp = `Usage: local-responses gpu install cuda|vulkan [--data-dir DIR] [--registry URL]
       local-responses gpu remove [cuda|vulkan] [--data-dir DIR]
       local-responses gpu status [--data-dir DIR]

Fetches node-llama-cpp ${gpuBuildVersion}'s prebuilt GPU build for this platform from the npm registry (checked against
the integrity pinned in package-lock.json) into <data folder>/gpu; \`serve --gpu cuda|vulkan|auto\` then uses it.
The CUDA build also needs the CUDA 12 runtime (libcudart, libcublas) installed on the system.
`;

type GpuArgs = {action: "install" | "remove" | "status", builds: GpuBuild[], dataDir: string, registry?: string};

function parseGpuArgs(argv: string[]): GpuArgs {
    const [action, ...rest] = argv;
    if (action !== "install" && action !== "remove" && action !== "status")
        throw new Error(action == null ? "gpu: say install, remove or status" : `gpu: unknown action '${action}'`);
    let dataDir = defaultDataDir();
    let registry: string | undefined;
    const builds: GpuBuild[] = [];
    for (let index = 0; index < rest.length; index++) {
        const arg = rest[index]!;
        if (arg === "--data-dir" || arg === "--registry") {
            const value = rest[++index];
            if (value == null)
                throw new Error(`${arg} needs a value`);
            if (arg === "--data-dir")
                dataDir = path.resolve(value);
            else
                registry = value;
        } else if ((gpuBuilds as readonly string[]).includes(arg))
            builds.push(arg as GpuBuild);
        else
            throw new Error(`gpu ${action}: unknown argument '${arg}' (builds: ${gpuBuilds.join(", ")})`);
    }
    if (action === "install" && builds.length !== 1)
        throw new Error("gpu install: name one build: cuda or vulkan");
    return {action, builds: action === "remove" && builds.length === 0 ? [...gpuBuilds] : builds, dataDir, registry};
}

/** Lets the engine of this process and its children find the GPU builds installed in `dataDir` (unless already set). */
export function useGpuBuildsOf(dataDir: string, env: NodeJS.ProcessEnv = process.env): void {
    if (env[gpuBuildsFolderVariable] == null || env[gpuBuildsFolderVariable] === "")
        env[gpuBuildsFolderVariable] = gpuBuildsFolder(dataDir);
}

/** Progress on stderr, a line per tenth of each package (a terminal or a log file alike). */
function progressPrinter(write: (line: string) => void): (progress: GpuInstallProgress) => void {
    const printed = new Map<string, number>();
    return ({packageName, downloadedBytes, totalBytes}) => {
        const tenth = totalBytes > 0 ? Math.floor((downloadedBytes / totalBytes) * 10) : 0;
        if ((printed.get(packageName) ?? -1) >= tenth)
            return;
        printed.set(packageName, tenth);
        write(`gpu: ${packageName}@${gpuBuildVersion} ${tenth * 10}% of ${(totalBytes / 1e6).toFixed(1)} MB`);
    };
}

const writeStderr = (line: string): void => {
    process.stderr.write(`${line}\n`);
};

/** Runs the `gpu` verb; resolves to the exit code. Ctrl-C during an install leaves nothing half-installed. */
export async function runGpuCommand(argv: string[], write: (line: string) => void = writeStderr): Promise<number> {
    if (argv[0] == null || argv[0] === "--help" || argv[0] === "-h") {
        process.stdout.write(gpuHelp);
        return argv[0] == null ? 2 : 0;
    }
    let args: GpuArgs;
    try {
        args = parseGpuArgs(argv);
    } catch (error) {
        write(`error: ${(error as Error).message}`);
        return 2;
    }
    const folder = gpuBuildsFolder(args.dataDir);
    if (args.action === "status") {
        const installed = await installedGpuBuildsIn(folder);
        process.stdout.write(`${installed.length === 0 ? "no GPU build installed" : `installed: ${installed.join(", ")}`} in ${folder}\n`);
        for (const line of await installedBuildsLackingLibraries({[gpuBuildsFolderVariable]: folder}))
            process.stdout.write(`${line}\n`);
        return 0;
    }
    if (args.action === "remove") {
        const removed = (await Promise.all(args.builds.map((build) => removeGpuBuild(folder, build).catch(() => [])))).flat();
        write(removed.length === 0 ? `gpu: nothing to remove in ${folder}` : `gpu: removed ${removed.join(", ")}`);
        return 0;
    }
    const build = args.builds[0]!;
    const cancel = new AbortController();
    const onSigint = () => cancel.abort(new Error("cancelled"));
    process.once("SIGINT", onSigint);
    try {
        gpuBuildPackages(build);
        const started = Date.now();
        const installed = await installGpuBuild({
            folder, build, registry: args.registry, signal: cancel.signal, onProgress: progressPrinter(write)
        });
        write(`gpu: installed the ${build} build in ${((Date.now() - started) / 1000).toFixed(1)} s: ${installed.join(", ")}`);
        for (const line of await installedBuildsLackingLibraries({[gpuBuildsFolderVariable]: folder}, build))
            write(`gpu: warning: ${line}`);
        write(`gpu: \`local-responses serve --gpu ${build}\` (or --gpu auto) uses it from its next start.`);
        return 0;
    } catch (error) {
        if (cancel.signal.aborted) {
            write("gpu: cancelled; nothing was installed.");
            return 130;
        }
        write(`error: gpu install ${build}: ${(error as Error).message} (nothing was installed; the CPU build keeps working)`);
        return 1;
    } finally {
        process.off("SIGINT", onSigint);
    }
}
