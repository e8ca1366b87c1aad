import type {ClaudeProvider} from "./claudeSettings.js";
import {chooseMainModel, chooseSmallModel, type PickModel, type ServedModels} from "../clientConfig/chooseModels.js";
import {offersChoice} from "../clientConfig/libraryModelItems.js";

/**
 * The models Configure Claude Code… writes: with a library of several, the main model the person picks, then the
 * small, fast one; otherwise the model served, for both, asked nothing; with the main model's context when known.
 * Null when the person closed a pick.
 */
export async function chooseClaudeModels(served: ServedModels, pick: PickModel): Promise<Omit<ClaudeProvider, "endpoint"> | null> {
    const main = await chooseMainModel(served, pick, "Configure Claude Code: main model");
    if (main == null)
        return null;
    const chosen = main.contextWindow == null ? {model: main.id} : {model: main.id, contextWindow: main.contextWindow};
    if (!offersChoice(served.library))
        return chosen;
    const small = await chooseSmallModel(served, main.id, pick, "Configure Claude Code: small, fast model");
    return small == null ? null : {...chosen, library: {smallModel: small}};
}
