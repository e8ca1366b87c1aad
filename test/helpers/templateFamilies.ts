import path from "node:path";
import {sharedDir} from "./paths.js";

/** What `../shared/models/templates/families.mjs` exports: the families, their native call texts and scripts. */
export type TemplateFamilies = {
    families: Record<string, {name: string, scripts?: {call?: {request?: object}, think?: {request?: object}}}>,
    nativeCalls: Record<string, string | undefined>
};

export function templateFamilies(): Promise<TemplateFamilies> {
    return import(path.join(sharedDir, "models/templates/families.mjs")) as Promise<TemplateFamilies>;
}
