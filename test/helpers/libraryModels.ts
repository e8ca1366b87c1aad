import type {LibraryModel} from "../../src/engine/types.js";
import type {PickModel} from "../../src/vscode/clientConfig/chooseModels.js";
import type {LibraryModelItem} from "../../src/vscode/clientConfig/libraryModelItems.js";

/** A library model as `ModelDirectory.list()` gives it: an unloaded 2 GiB file unless `fields` say otherwise. */
export function libraryEntry(id: string, fields: Partial<LibraryModel> = {}): LibraryModel {
    return {
        id, aliases: [], path: `/m/${id}.gguf`, fileBytes: 2 * 2 ** 30, quantization: null, status: "unloaded", failure: null,
        estimatedBytes: null, info: null, contextSize: null, inFlight: 0, lastUsedAt: null, lastUsedBy: new Map(), keepAliveMs: null,
        idleUnloadAt: null, stats: null, ...fields
    };
}

/**
 * The editor's QuickPick, scripted: each call answers the row of the next id in `answers` (null: the person closes the
 * pick); `shown` records what each call offered.
 */
export function scriptedPick(...answers: (string | null)[]) {
    const shown: {title: string, items: LibraryModelItem[]}[] = [];
    const pick: PickModel = (items, {title}) => {
        shown.push({title, items});
        const answer = answers.shift();
        if (answer === undefined)
            throw new Error(`unexpected pick: ${title}`);
        return Promise.resolve(answer == null ? undefined : items.find((item) => item.id === answer));
    };
    return {pick, shown};
}
