import type {ModelHashes} from "../../engine/models/recordedDownload.js";
import type {KeptState} from "./keptState.js";

const downloadHashesKey = "localResponses.downloadHashes";

/** What the first download of a catalog entry recorded: its files' hashes, and when. */
type Recorded = {hashes: ModelHashes, recordedAt: string};

/**
 * The SHA-256 of each catalog entry's first download, kept in the extension's global state by the entry's URI, so a
 * later download of the same entry (another folder, a deleted file, a new machine's synced state) is checked against
 * it: an entry whose publisher lists no checksum (the curated list pins none yet) still cannot change under a person
 * unnoticed. An entry's own `sha256` needs no record.
 */
export class DownloadHashes {
    public constructor(private readonly state: KeptState) {}

    /** The hashes recorded for this entry's URI, or null before its first download. */
    public recorded(uri: string): ModelHashes | null {
        return this.all()[uri]?.hashes ?? null;
    }

    public async record(uri: string, hashes: ModelHashes, now = new Date()): Promise<void> {
        await this.state.update(downloadHashesKey, {...this.all(), [uri]: {hashes, recordedAt: now.toISOString()}});
    }

    /** Forgets an entry's hashes (its publisher changed the file on purpose): its next download records anew. */
    public async forget(uri: string): Promise<void> {
        const {[uri]: _forgotten, ...rest} = this.all();
        await this.state.update(downloadHashesKey, rest);
    }

    private all(): Record<string, Recorded> {
        return this.state.get<Record<string, Recorded>>(downloadHashesKey, {});
    }
}
