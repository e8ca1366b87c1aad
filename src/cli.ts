import fs from "node:fs";
import {defaultApiKeyFile, readOrCreateApiKey} from "./host/apiKeyFile.js";
import {cliHelp, CliUsageError, parseCliOptions} from "./host/cliOptions.js";
import {checkExposure, describeAuth, ExposureRefusal} from "./host/exposure.js";
import {LocalResponsesHost} from "./host/LocalResponsesHost.js";
import {usesLibrary} from "./host/librarySpecs.js";
import {demoModelPath, listenProblem, memoryProblem, modelFileProblem} from "./host/startupChecks.js";
import {runGpuCommand, useGpuBuildsOf} from "./host/gpuCommand.js";
import {defaultDataDir} from "./host/dataFolder.js";
import {estimateModelFit} from "./engine/models/modelFit.js";
import {runsOnCpuOnly} from "./engine/models/backendChoice.js";
import {formatRequestLine} from "./server/middleware/requestLog.js";

/** The headless face: `local-responses serve --model FILE`. */
async function main(argv: string[]): Promise<number> {
    const [command, ...rest] = argv;
    if (command == null || command === "--help" || command === "-h" || command === "help") {
        process.stdout.write(cliHelp());
        return command == null ? 2 : 0;
    }
    if (command === "gpu")
        return runGpuCommand(rest);
    if (command !== "serve") {
        process.stderr.write(`Unknown command '${command}'.\n\n${cliHelp()}`);
        return 2;
    }

    let options;
    try {
        options = parseCliOptions(rest);
    } catch (error) {
        process.stderr.write(`error: ${(error as Error).message}\n\n${cliHelp()}`);
        return 2;
    }
    if (options.help) {
        process.stdout.write(cliHelp());
        return 0;
    }
    const {config} = options;
    if (config.engine === "upstream" || config.library.withUpstream) {
        const keyFile = options.upstreamApiKeyFile;
        if (keyFile != null && config.upstream.apiKey == null) {
            try {
                config.upstream.apiKey = fs.readFileSync(keyFile, "utf8").split(/\r?\n/)[0]!.trim() || null;
            } catch (error) {
                const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
                process.stderr.write(`error: cannot read --upstream-api-key-file ${keyFile}: ${reason}\n`);
                return 2;
            }
        }
    }

    const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
    const library = usesLibrary(config);
    if (config.engine !== "upstream") {
        if (config.modelPath == null && !library) {
            config.modelPath = demoModelPath();
            log(`model: no --model given, serving the bundled demo model ${config.modelPath} (a 260K-parameter toy that writes `
                + "children's stories; pass --model FILE to serve a GGUF model of your own)");
        }
        for (const file of [config.modelPath, ...config.library.extraModelPaths]) {
            const problem = file == null ? null : modelFileProblem(file);
            if (problem != null) {
                process.stderr.write(`error: ${problem}\n`);
                return 2;
            }
        }
        const folder = config.library.modelsDir;
        if (folder != null && !fs.statSync(folder, {throwIfNoEntry: false})?.isDirectory()) {
            process.stderr.write(`error: --models-dir ${folder} is not a folder\n`);
            return 2;
        }
    }
    let exposureWarnings: string[];
    try {
        exposureWarnings = checkExposure({
            host: config.host, authRequired: config.apiKeys.length + config.adminApiKeys.length > 0 || !options.noAuth,
            allowedOrigins: config.allowedOrigins
        });
    } catch (error) {
        if (!(error instanceof ExposureRefusal))
            throw error;
        process.stderr.write(`error: ${error.message}\n`);
        return 2;
    }
    for (const warning of exposureWarnings)
        log(`warning: ${warning}`);
    const authLine = describeAuth(config.apiKeys.length, options.noAuth);
    if (authLine != null)
        log(authLine);
    else if (config.apiKeys.length === 0) {
        const file = options.apiKeyFile ?? defaultApiKeyFile();
        const {created} = await readOrCreateApiKey(file).then((result) => {
            config.apiKeys = result.keys;
            return result;
        });
        log(`auth: API key ${created ? "generated in" : "read from"} ${file} (send it as 'Authorization: Bearer <key>')`);
    }

    // GPU builds from `local-responses gpu install` (in the data folder, whichever store is used).
    useGpuBuildsOf(config.storage.dataDir ?? defaultDataDir());
    const host = new LocalResponsesHost(config, {
        log,
        onRequest: (entry) => log(formatRequestLine(entry))
    });

    try {
        // A library checks each model against its memory budget when it loads it (503 model_memory_exceeded).
        if (config.engine !== "upstream" && config.modelPath != null && !library) {
            // node-llama-cpp's own estimate from the file's header; where it cannot tell, the load itself says what failed.
            const fit = await estimateModelFit({uri: config.modelPath, contextSize: config.contextSize, sequences: config.parallel})
                .catch(() => null);
            const problem = fit == null ? null : memoryProblem(config.modelPath, fit);
            if (problem != null && runsOnCpuOnly(config.gpu)) {
                process.stderr.write(`error: ${problem}\n`);
                await host.engine.dispose().catch(() => undefined);
                return 1;
            }
            if (problem != null)
                log(`warning: ${problem} (loading anyway: --gpu ${String(config.gpu)} may offload it)`);
        }
        if (library)
            await host.openLibrary();
        if (!library || config.modelPath != null)
            await host.loadModel(config.modelPath ?? "");
    } catch (error) {
        process.stderr.write(`error: ${(error as Error).message}\n`);
        await host.engine.dispose().catch(() => undefined);
        return 1;
    }

    let url: string;
    try {
        url = await host.start();
    } catch (error) {
        process.stderr.write(`error: ${listenProblem(error as NodeJS.ErrnoException, config.host, config.port)}\n`);
        await host.dispose();
        return 1;
    }
    process.stdout.write(`listening on ${url}\n`);

    await new Promise<void>((resolve) => {
        const shutdown = (signal: string) => {
            log(`${signal}: shutting down`);
            resolve();
        };
        process.once("SIGINT", () => shutdown("SIGINT"));
        process.once("SIGTERM", () => shutdown("SIGTERM"));
    });
    await host.dispose();
    return 0;
}

main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
        process.stderr.write(`error: ${error instanceof CliUsageError ? error.message : (error as Error)?.stack ?? String(error)}\n`);
        process.exit(1);
    }
);
