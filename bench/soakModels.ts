import {models} from "../test/helpers/paths.js";

/**
 * The shared models a library soak serves (`npm run soak -- --models N`), in this order; their ids are the file names.
 * A module of its own: bench/soakServer.ts starts a server when imported.
 */
export const soakModelFiles = [models.chatml, models.qwen, models.think];
