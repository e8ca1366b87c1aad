import type {LibraryModel} from "../../engine/types.js";
import {formatBytes} from "../models/formatBytes.js";

/** A row of a model pick: what the editor's QuickPick shows (label, description) and the library id it stands for. */
export type LibraryModelItem = {label: string, description: string, id: string};

/**
 * Whether a client's config has a model to choose: with no library, or a library of one, the model served is the only
 * name that answers, so the set-ups ask nothing (as they did before libraries).
 */
export function offersChoice(models: readonly LibraryModel[] | null): models is readonly LibraryModel[] {
    return models != null && models.length > 1;
}

/** One model as a row: a note (why it is offered where it is), then its state, file size and quantization. */
export function libraryModelItem(model: LibraryModel, note: string | null = null): LibraryModelItem {
    const parts = [note, model.status, model.fileBytes > 0 ? formatBytes(model.fileBytes) : null, model.quantization];
    return {label: model.id, description: parts.filter((part) => part != null).join(" · "), id: model.id};
}

/**
 * The main model's rows: the library's default first (what a request without a model gets, so Enter keeps the server's
 * own choice), then the others in the library's order.
 */
export function mainModelItems(models: readonly LibraryModel[], defaultId: string | null): LibraryModelItem[] {
    const first = models.find((model) => model.id === defaultId) ?? models[0];
    return [first, ...models.filter((model) => model !== first)]
        .filter((model) => model != null)
        .map((model) => libraryModelItem(model, model.id === defaultId ? "default" : null));
}

/** The smallest model by file size (the first of equals): the fastest to load and to answer, as a rule. */
export function smallestModel(models: readonly LibraryModel[]): LibraryModel | undefined {
    return models.reduce<LibraryModel | undefined>((smallest, model) => smallest == null || model.fileBytes < smallest.fileBytes
        ? model : smallest, undefined);
}

/**
 * The small fast model's rows (a client's background requests: titles, summaries, which want speed more than skill):
 * the smallest model first, the main model itself next ("same as the main model": one model loaded, no swapping),
 * then the others in the library's order. When the smallest is the main model, that one row comes first.
 */
export function smallModelItems(models: readonly LibraryModel[], mainId: string): LibraryModelItem[] {
    const main = models.find((model) => model.id === mainId);
    const smallest = smallestModel(models);
    const ordered = [smallest, main, ...models.filter((model) => model !== smallest && model !== main)];
    return [...new Set(ordered)].filter((model) => model != null).map((model) => libraryModelItem(model,
        model === main ? "same as the main model" : model === smallest ? "smallest" : null));
}
