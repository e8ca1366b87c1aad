import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {LoopbackFileServer} from "./LoopbackFileServer.js";

export type ServedFile = {
    /** A temporary folder for the test's downloads; removed by `close`. */
    root: string,
    /** The served file's path (rewrite it to make the server hand out different bytes). */
    file: string,
    /** Its SHA-256, hex. */
    digest: string,
    server: LoopbackFileServer,
    close(): Promise<void>
};

/**
 * A file served on 127.0.0.1 by a `LoopbackFileServer` for download tests, with its SHA-256: `bytes` random bytes
 * (not a model; a download only needs a name and a known hash) or a copy of `copyOf`, named `name`.
 */
export async function servedFile(options: {name: string, bytes?: number, copyOf?: string, prefix: string}): Promise<ServedFile> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), options.prefix));
    const file = path.join(root, "served", options.name);
    fs.mkdirSync(path.dirname(file));
    if (options.copyOf != null)
        fs.copyFileSync(options.copyOf, file);
    else
        fs.writeFileSync(file, crypto.randomBytes(options.bytes ?? 200_000));
    const server = new LoopbackFileServer({file});
    await server.start();
    return {
        root, file, server,
        digest: sha256Of(file),
        close: async () => {
            await server.stop();
            fs.rmSync(root, {recursive: true, force: true});
        }
    };
}

export function sha256Of(file: string): string {
    return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}
