import type {LibraryModel, ModelInfo} from "../../engine/types.js";
import {mainModelItems, offersChoice, smallModelItems, type LibraryModelItem} from "./libraryModelItems.js";

/** The editor's pick (a QuickPick): the row chosen, or undefined when the person closed it. */
export type PickModel = (items: LibraryModelItem[], options: {title: string, placeHolder: string}) => Promise<LibraryModelItem | undefined>;

/** What the server serves, as the set-ups read it from the controller. */
export type ServedModels = {
    /** The loaded model (with a library: the one that answered last); null when none is. */
    model: ModelInfo | null,
    /** The library's models; null with one model. */
    library: readonly LibraryModel[] | null,
    /** The library's default: the model a request without `model` gets. */
    defaultId: string | null
};

/** The model a client's config names, and its context per request when known (Codex cannot know a local model's). */
export type ChosenModel = {id: string, contextWindow?: number};

/**
 * The model a client uses by default: with a library of several, the one the person picks (the default first);
 * otherwise the model served, asked nothing. Null when the person closed the pick.
 */
export async function chooseMainModel(served: ServedModels, pick: PickModel, title: string): Promise<ChosenModel | null> {
    const {model, library} = served;
    if (!offersChoice(library)) {
        // A library of one: its model, loaded or not ("local" would be a name the library does not serve).
        const only = library?.[0];
        return only != null ? chosen(only) : {id: model?.id ?? "local", contextWindow: model?.contextSize};
    }
    const item = await pick(mainModelItems(library, served.defaultId), {title, placeHolder: "The model the client uses by default"});
    const picked = library.find((entry) => entry.id === item?.id);
    return picked == null ? null : chosen(picked);
}

/**
 * The model for a client's small, fast requests (Claude Code's titles and summaries): with a library of several, the
 * one the person picks (the smallest first); otherwise the main model, asked nothing. Null when the person closed it.
 */
export async function chooseSmallModel(served: ServedModels, mainId: string, pick: PickModel, title: string): Promise<string | null> {
    if (!offersChoice(served.library))
        return mainId;
    const item = await pick(smallModelItems(served.library, mainId),
        {title, placeHolder: "The small, fast model for background requests (titles, summaries)"});
    return item?.id ?? null;
}

/** A library model's context per request: as loaded, else as it will be loaded (unknown until then when it takes its own). */
function chosen(model: LibraryModel): ChosenModel {
    const contextWindow = model.info?.contextSize ?? model.contextSize;
    return contextWindow == null ? {id: model.id} : {id: model.id, contextWindow};
}
