import {serveCli, type CliServer as ServedProcess} from "../test/helpers/cliServer.js";

/** A `dist/cli.js serve` in its own process: its API's base URL (ending in `/v1`, as it prints it), the process, how to stop it. */
export type CliServer = ServedProcess & {stop: () => void};

/**
 * Starts `node dist/cli.js serve --port 0 <args>` (run `npm run build` first) and resolves once it prints where it
 * listens; a process that exits first rejects with what it printed. Its log goes to this process's stderr.
 */
export async function startCliServer(args: readonly string[]): Promise<CliServer> {
    const server = await serveCli(args, {stderr: "inherit"});
    return {...server, stop: () => server.child.kill("SIGTERM")};
}

/** The prompt tokens of a Responses input, as a server started with `--no-auth` counts them (without evaluating it). */
export async function countInputTokens(server: CliServer, input: string): Promise<number> {
    const response = await fetch(`${server.url}/responses/input_tokens`, {
        method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify({model: "m", input})
    });
    return (await response.json() as {input_tokens: number}).input_tokens;
}
